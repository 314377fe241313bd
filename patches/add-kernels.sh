#!/usr/bin/env bash
# Commits protoaccel's kernels into a protobuf checkout, under
# third_party/protoaccel/, the way upstream carries utf8_range: the first
# commit of a series whose `series` file lists `add-kernels`
# (patches/protobuf-main/). The patches after it build the kernels from
# there with CMake (0001) and Bazel (0006).
#
# The commit is made from this tree's src/ each time, not kept as a patch
# here, so that the kernels exist once in this repository. It takes the
# library's sources and headers (not src/tools/) and adds a BUILD.bazel.
#
# Usage: patches/add-kernels.sh PROTOBUF_CHECKOUT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: patches/add-kernels.sh PROTOBUF_CHECKOUT" >&2; exit 2; }
checkout=$1
git -C "$checkout" rev-parse --git-dir >/dev/null 2>&1 ||
  { echo "error: $checkout is not a git checkout" >&2; exit 1; }
dest=$checkout/third_party/protoaccel
[ ! -e "$dest" ] || { echo "error: $dest exists" >&2; exit 1; }

mkdir -p "$dest"
# Tracked files only: a build or editor file in src/ never reaches upstream.
git -C "$root" ls-files -z src | grep -zv '^src/tools/' |
  (cd "$root" && xargs -0 cp --parents -t "$dest")

cat >"$dest/BUILD.bazel" <<'EOF'
# protoaccel: SIMD kernels for packed varints (count, decode, size, encode)
# and UTF-8 validation (SSE4.1, AVX2, AVX-512, NEON), chosen at run time
# from the CPU; scalar kernels on every other target. Each SIMD file selects its
# instruction set itself (target pragmas), so no file needs copts and the
# build never depends on -march.

load("@bazel_skylib//rules:common_settings.bzl", "bool_flag")
load("@rules_cc//cc:defs.bzl", "cc_library")

package(default_visibility = ["//visibility:private"])

licenses(["notice"])

# --//third_party/protoaccel:simd=false compiles the SIMD kernels out, as
# CMake's -Dprotobuf_PROTOACCEL_SIMD=OFF does: every family runs scalar.
bool_flag(
    name = "simd",
    build_setting_default = True,
)

config_setting(
    name = "simd_off",
    flag_values = {":simd": "false"},
)

# The public header alone, which the internal headers include too.
# libprotobuf's copy has a namespace of its own, so that a program may link
# its own protoaccel beside it.
cc_library(
    name = "api",
    hdrs = ["src/include/protoaccel/protoaccel.h"],
    defines = ["PROTOACCEL_NAMESPACE=in_libprotobuf"],
    strip_include_prefix = "src/include",
)

# Headers shared by the kernels, included as "dispatch/kernels.h" and the like.
cc_library(
    name = "internal_headers",
    hdrs = glob(
        ["src/**/*.h"],
        exclude = ["src/include/**"],
    ),
    strip_include_prefix = "src",
    deps = [":api"],
)

cc_library(
    name = "protoaccel",
    srcs = glob(["src/*/*.cc"]),
    hdrs = ["src/include/protoaccel/protoaccel.h"],
    local_defines = select({
        ":simd_off": ["PROTOACCEL_NO_SIMD"],
        "//conditions:default": [],
    }),
    strip_include_prefix = "src/include",
    visibility = ["//src/google/protobuf:__subpackages__"],
    deps = [
        ":api",
        ":internal_headers",
    ],
)
EOF

git -C "$checkout" add third_party/protoaccel
git -C "$checkout" -c user.name=protoaccel -c user.email=dev@protoaccel.invalid \
  commit -q -F - <<'EOF'
Add protoaccel's kernels under third_party/protoaccel

The packed-varint paths of the following commits (reading, sizing and
writing) call protoaccel: kernels for SSE4.1, AVX2, AVX-512 and NEON,
chosen once at run time from CPUID (never from -march), with scalar
kernels for every other target and for short inputs. Each family's
kernels are tested against its scalar reference on every instruction
set, and the whole library against stock protobuf, in protoaccel's own
repository. Its UTF-8 kernels come along but nothing here calls them:
UTF-8 is a change of its own, to utf8_range.

It is carried like utf8_range: sources here, built by libprotobuf's
CMake (next commit) and Bazel (last commit) files. PROTOACCEL_NO_SIMD
compiles every SIMD file to nothing.
EOF
echo "add-kernels: $(git -C "$checkout" diff --shortstat HEAD~1 HEAD) ($dest)"
