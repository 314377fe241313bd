# The sources of libprotoaccel, for this project's CMakeLists.txt and for
# builds that compile the kernels into another library (libprotobuf). Each
# SIMD file selects its instruction set itself (#pragma GCC target; NEON,
# arm64's baseline, needs none), so no file needs flags of its own and the
# build never depends on -march. Each compiles to nothing off its own
# architecture.
set(PROTOACCEL_SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR})
set(PROTOACCEL_INCLUDE_DIRS
  ${PROTOACCEL_SOURCE_DIR}/include
  ${PROTOACCEL_SOURCE_DIR})
set(PROTOACCEL_SOURCES
  ${PROTOACCEL_SOURCE_DIR}/dispatch/cpu_features.cc
  ${PROTOACCEL_SOURCE_DIR}/dispatch/describe.cc
  ${PROTOACCEL_SOURCE_DIR}/dispatch/dispatch.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_count/scalar.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_count/sse4.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_count/avx2.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_count/avx512.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_count/neon.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_decode/scalar.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_decode/sse4.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_decode/avx2.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_decode/avx512.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_decode/neon.cc
  ${PROTOACCEL_SOURCE_DIR}/utf8_validate/scalar.cc
  ${PROTOACCEL_SOURCE_DIR}/utf8_validate/sse4.cc
  ${PROTOACCEL_SOURCE_DIR}/utf8_validate/avx2.cc
  ${PROTOACCEL_SOURCE_DIR}/utf8_validate/avx512.cc
  ${PROTOACCEL_SOURCE_DIR}/utf8_validate/neon.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_encode/scalar.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_encode/sse4.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_encode/avx2.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_encode/avx512.cc
  ${PROTOACCEL_SOURCE_DIR}/varint_encode/neon.cc)
