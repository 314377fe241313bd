// utf8_range_IsValid of every variant (see CMakeLists.txt) on ASCII, 2-byte
// and mixed 1-4-byte text of 16 bytes to 64 KB: bytes per second.
// Names: utf8_range/VARIANT/TEXT/LENGTH.

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

namespace {

struct Variant {
  const char* name;
  bool (*is_valid)(const char*, size_t);
  size_t (*valid_prefix)(const char*, size_t);
};
#include "variants.inc"

// LENGTH bytes of whole characters of the kind (cut at a character's end,
// padded with ASCII).
std::string Text(const std::string& kind, size_t length) {
  static const char* const kMixed[] = {"a", "Z", "\xc3\xa9", "\xd0\xb6", "\xe2\x82\xac",
                                       "\xe6\x97\xa5", "\xf0\x9f\x98\x80"};
  std::mt19937 rng(7);
  std::string s;
  while (true) {
    std::string c = kind == "ascii" ? std::string(1, static_cast<char>('a' + rng() % 26))
                    : kind == "2byte" ? std::string("\xc3\xa9")
                                      : std::string(kMixed[rng() % 7]);
    if (s.size() + c.size() > length) break;
    s += c;
  }
  s.resize(length, ' ');
  return s;
}

void Register() {
  for (const Variant& v : kVariants) {
    for (const char* kind : {"ascii", "2byte", "mixed"}) {
      for (size_t length : {16, 64, 1024, 65536}) {
        const std::string name = std::string("utf8_range/") + v.name + "/" + kind + "/" +
                                 std::to_string(length);
        benchmark::RegisterBenchmark(name.c_str(), [v, kind, length](benchmark::State& state) {
          const std::string text = Text(kind, length);
          if (!v.is_valid(text.data(), text.size())) state.SkipWithError("invalid text");
          for (auto _ : state) {
            benchmark::DoNotOptimize(v.is_valid(text.data(), text.size()));
          }
          state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * length));
        });
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
