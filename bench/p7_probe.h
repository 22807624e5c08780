// What the P7 probes (docs/performance.md: compile_speed, validate_speed)
// share: the command line, reading the module, the size of its code section
// (P7 is defined on exactly those bytes, and neither the public API nor the
// Module IR exposes section sizes), process CPU time and medians.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

namespace weft_bench {

// LEB128 reader over the module bytes; only what section headers need.
inline bool read_u32(const std::vector<uint8_t>& bytes, size_t& pos, uint32_t& out) {
  uint64_t value = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (pos >= bytes.size()) return false;
    uint8_t b = bytes[pos++];
    value |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      out = uint32_t(value);
      return value <= UINT32_MAX;
    }
  }
  return false;
}

// Size of the code section's payload (id 10) and its function count.
inline std::optional<std::pair<uint32_t, uint32_t>> code_section(const std::vector<uint8_t>& bytes) {
  size_t pos = 8;  // magic + version
  while (pos < bytes.size()) {
    uint8_t id = bytes[pos++];
    uint32_t size = 0;
    if (!read_u32(bytes, pos, size) || size > bytes.size() - pos) return std::nullopt;
    if (id == 10) {
      size_t p = pos;
      uint32_t count = 0;
      if (!read_u32(bytes, p, count)) return std::nullopt;
      return std::make_pair(size, count);
    }
    pos += size;
  }
  return std::nullopt;
}

// `PROBE FILE.wasm [REPS]`, read.
struct ProbeInput {
  std::vector<uint8_t> bytes;
  uint32_t code_bytes = 0;
  uint32_t functions = 0;
  int reps = 0;
};

// Reads the command line and the module; on failure says why (as `probe`)
// and returns the exit status, else 0.
inline int read_probe_input(const char* probe, int argc, char** argv, int default_reps, ProbeInput& out) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s FILE.wasm [REPS]\n", probe);
    return 2;
  }
  out.reps = std::max(argc == 3 ? std::atoi(argv[2]) : default_reps, 1);
  std::ifstream file(argv[1], std::ios::binary);
  out.bytes.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  if (!file.good() && !file.eof()) {
    std::fprintf(stderr, "%s: cannot read %s\n", probe, argv[1]);
    return 2;
  }
  auto code = code_section(out.bytes);
  if (!code) {
    std::fprintf(stderr, "%s: %s: no code section (or malformed section headers)\n", probe, argv[1]);
    return 2;
  }
  out.code_bytes = code->first;
  out.functions = code->second;
  return 0;
}

// CPU time of the process, as bench/run.py measures by default: the machines
// are shared, and wall time there measures the other tenants too.
inline double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace weft_bench
