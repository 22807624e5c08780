// json_tokenize: a JSON tokenizer (a switch on each input byte) over a
// generated 256 KiB document, repeated — the dispatch pattern of lexers and
// parsers, on i32 bytes rather than interp's bytecode structs.
// Usage: json_tokenize [rounds]   (default 1000); prints token counts and a checksum.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DOCUMENT_BYTES (256u << 10)

// --- The document: pseudo-random nested objects and arrays (xorshift32) ------
static char* text;
static size_t text_len, text_cap;
static uint32_t rng = 88172645u;

static uint32_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

static void emit(const char* s) {
  for (; *s; ++s) {
    if (text_len + 1 >= text_cap) {
      text_cap = text_cap ? text_cap * 2 : 4096;
      text = realloc(text, text_cap);
      if (!text) exit(2);
    }
    text[text_len++] = *s;
  }
}

static void emit_number(void) {
  char digits[32];
  const uint32_t v = next();
  snprintf(digits, sizeof digits, v & 1 ? "-%u" : "%u", v >> (v & 15 ? 12 : 1));
  emit(digits);
  if (v & 2) {
    snprintf(digits, sizeof digits, ".%u", (v >> 8) % 1000);
    emit(digits);
  }
}

static void emit_string(void) {
  static const char* const pieces[] = {"id", "name", "value", "x", "\\\"", "\\\\", "\\n", "items", " ", "z9"};
  emit("\"");
  for (uint32_t k = 1 + next() % 4; k > 0; --k) emit(pieces[next() % 10]);
  emit("\"");
}

static void emit_value(int depth) {
  const uint32_t kind = depth >= 5 ? 3 + next() % 5 : next() % 8;
  switch (kind) {
    case 0:
    case 1:
      emit(" {");
      for (uint32_t k = next() % 5; k > 0; --k) {
        emit_string();
        emit(": ");
        emit_value(depth + 1);
        if (k > 1) emit(",\n");
      }
      emit("}");
      break;
    case 2:
      emit("[");
      for (uint32_t k = next() % 6; k > 0; --k) {
        emit_value(depth + 1);
        if (k > 1) emit(", ");
      }
      emit("]");
      break;
    case 3:
    case 4: emit_number(); break;
    case 5: emit_string(); break;
    case 6: emit(next() & 1 ? "true" : "false"); break;
    default: emit("null"); break;
  }
}

// --- The tokenizer --------------------------------------------------------------
enum { PUNCTUATION, STRING, NUMBER, LITERAL, KINDS };

typedef struct {
  uint32_t count[KINDS];
  uint64_t hash;
} Tokens;

// Returns 0, or -1 at a byte no token starts with. noinline: a tokenizer is a
// function its callers call, once per document here, not code pasted into main.
__attribute__((noinline)) static int tokenize(const char* s, size_t n, Tokens* t) {
  size_t i = 0;
  while (i < n) {
    const char c = s[i];
    switch (c) {
      case ' ':
      case '\t':
      case '\n':
      case '\r': ++i; break;
      case '{':
      case '}':
      case '[':
      case ']':
      case ':':
      case ',':
        ++t->count[PUNCTUATION];
        t->hash = t->hash * 31 + (uint8_t)c;
        ++i;
        break;
      case '"': {
        const size_t start = ++i;
        while (i < n && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
        ++t->count[STRING];
        t->hash = t->hash * 37 + (i - start);
        ++i;
        break;
      }
      case '-':
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9': {
        const int negative = c == '-';
        uint64_t value = 0;
        i += negative;
        while (i < n && (uint8_t)(s[i] - '0') < 10) value = value * 10 + (uint64_t)(s[i++] - '0');
        if (i < n && s[i] == '.') {
          for (++i; i < n && (uint8_t)(s[i] - '0') < 10; ++i) value = value * 10 + (uint64_t)(s[i] - '0');
        }
        ++t->count[NUMBER];
        t->hash ^= negative ? ~value : value;
        break;
      }
      case 't':
      case 'f':
      case 'n':  // true, false, null
        i += c == 'f' ? 5 : 4;
        ++t->count[LITERAL];
        t->hash += (uint8_t)c;
        break;
      default: return -1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  const uint32_t rounds = argc > 1 ? (uint32_t)atoi(argv[1]) : 1000;
  emit("[");
  while (text_len < DOCUMENT_BYTES) {
    emit_value(0);
    emit(",\n");
  }
  emit("null]");
  Tokens tokens = {{0}, 0};
  uint64_t checksum = 0;
  for (uint32_t r = 0; r < rounds; ++r) {
    tokens = (Tokens){{0}, r};  // a different hash per round, so no round can be skipped
    if (tokenize(text, text_len, &tokens) != 0) {
      printf("json_tokenize: bad byte\n");
      return 1;
    }
    checksum = checksum * 1000003u + tokens.hash;
  }
  printf("json_tokenize(%u) %zu bytes: %u punctuation, %u strings, %u numbers, %u literals; checksum %016llx\n", rounds,
         text_len, tokens.count[PUNCTUATION], tokens.count[STRING], tokens.count[NUMBER], tokens.count[LITERAL],
         (unsigned long long)checksum);
  free(text);
  return 0;
}
