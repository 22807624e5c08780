// Helpers shared by the text/ unit tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "text/text.h"
#include "text/wast.h"

namespace weft::text::testing {

inline Module parse_ok(std::string_view src) {
  Result<Module> r = parse_module(src);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string()) << "\nin: " << src;
  return r.ok() ? std::move(r).value() : Module{};
}

// A WAST script weft cannot parse: a whole-script error (tokens, parentheses),
// or a command that did not parse — which must say why and where.
inline ::testing::AssertionResult wast_rejected(std::string_view src) {
  Result<WastScript> r = parse_wast(src);
  if (!r.ok()) {
    if (r.error().kind != ErrorKind::Malformed) return ::testing::AssertionFailure() << r.error().to_string();
    return ::testing::AssertionSuccess();
  }
  for (const WastCommand& c : r->commands) {
    if (c.kind != WastCommand::Kind::ParseError) continue;
    if (c.text.empty() || c.line == 0) return ::testing::AssertionFailure() << "a parse error without message or line";
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "accepted: " << src;
}

inline Error parse_error(std::string_view src, const TextOptions& options = {}) {
  Result<Module> r = parse_module(src, options);
  EXPECT_FALSE(r.ok()) << "accepted: " << src;
  return r.ok() ? Error{} : r.error();
}

// The body bytes (including the final end) of defined function `index`.
inline std::vector<uint8_t> body_of(std::string_view src, size_t index = 0) {
  Module m = parse_ok(src);
  if (index >= m.functions.size()) {
    ADD_FAILURE() << "no function " << index << " in: " << src;
    return {};
  }
  const FunctionBody& body = m.functions[index].body;
  return std::vector<uint8_t>(body.begin(), body.end());
}

using Bytes = std::vector<uint8_t>;

}  // namespace weft::text::testing
