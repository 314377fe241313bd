// protoaccel-info: says whether the libprotobuf.so.32 that programs load
// is accelerated, and what it chose. An accelerated libprotobuf exports
// protoaccel_describe() (patches/protobuf-3.21.12); Debian's does not.
//
// Usage: protoaccel-info [LIBRARY]   (default libprotobuf.so.32, found as
// the dynamic loader finds it for any program)
// Exits 0 if accelerated, 1 if stock, 2 if the library cannot be loaded.

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc > 2 || (argc == 2 && (std::strcmp(argv[1], "-h") == 0 ||
                                 std::strcmp(argv[1], "--help") == 0))) {
    std::fprintf(stderr, "usage: %s [LIBRARY]  (default libprotobuf.so.32)\n", argv[0]);
    return 2;
  }
  const char* name = argc == 2 ? argv[1] : "libprotobuf.so.32";
  void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "protoaccel-info: cannot load %s: %s\n", name, dlerror());
    return 2;
  }
  const char* path = name;
  link_map* map = nullptr;
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr) path = map->l_name;
  using DescribeFn = const char* (*)();
  const auto describe = reinterpret_cast<DescribeFn>(dlsym(library, "protoaccel_describe"));
  if (describe == nullptr) {
    std::printf("%s: stock (no protoaccel_describe)\n", path);
    return 1;
  }
  std::printf("%s: accelerated\n%s", path, describe());
  return 0;
}
