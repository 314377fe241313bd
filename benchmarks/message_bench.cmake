# message_bench, the program of the A/B report (benchmarks/ab.py), for a
# given protobuf: included by benchmarks/CMakeLists.txt (the system's
# protobuf, Debian's headers) and by benchmarks/standalone/ (a protobuf
# install prefix given to ci/ab.sh --lib that is no drop-in for 3.21.12).
#
# protoaccel_add_message_bench(PROTOC LIBPROTOBUF_TARGET [PROTOC_LIBDIR])
#   PROTOC        protoc of the same release as the headers (path or target)
#   PROTOC_LIBDIR put on LD_LIBRARY_PATH to run protoc (a private install),
#                 before the LD_LIBRARY_PATH that CMake was configured with
#
# Google's benchmark datasets (their .proto and .pb) come from the protobuf
# source that third_party/fetch.sh unpacks; a missing .proto is left out of
# the build (its cases then report that they are skipped, and why).

get_filename_component(PROTOACCEL_REPO_ROOT ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
set(PROTOACCEL_DATASETS_DIR
  ${PROTOACCEL_REPO_ROOT}/third_party/src/protobuf-3.21.12/benchmarks/datasets
  CACHE PATH "Google's benchmark datasets (.proto and dataset.*.pb files)")

function(protoaccel_add_message_bench protoc libprotobuf)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/message_bench_pb)
  file(MAKE_DIRECTORY ${out})
  if(TARGET ${protoc})
    set(protoc $<TARGET_FILE:${protoc}>)
  endif()
  set(run_protoc ${protoc})
  if(ARGC GREATER 2)
    # The configuring environment's path stays behind it: a protoc of
    # protobuf 22 or later finds abseil there.
    set(path ${ARGV2})
    if(DEFINED ENV{LD_LIBRARY_PATH})
      set(path "${path}:$ENV{LD_LIBRARY_PATH}")
    endif()
    set(run_protoc ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${path} ${protoc})
  endif()
  set(protos
    ${PROTOACCEL_REPO_ROOT}/tests/libprotobuf/corpus3.proto
    ${PROTOACCEL_REPO_ROOT}/benchmarks/ab_messages.proto
    ${PROTOACCEL_REPO_ROOT}/benchmarks/ab_extensions.proto)
  foreach(dataset_proto
      google_message1/proto2/benchmark_message1_proto2.proto
      google_message1/proto3/benchmark_message1_proto3.proto
      google_message2/benchmark_message2.proto)
    if(EXISTS ${PROTOACCEL_DATASETS_DIR}/${dataset_proto})
      list(APPEND protos ${PROTOACCEL_DATASETS_DIR}/${dataset_proto})
    else()
      message(STATUS "message_bench: ${PROTOACCEL_DATASETS_DIR}/${dataset_proto} "
        "missing (third_party/fetch.sh protobuf): its dataset cases will be skipped")
    endif()
  endforeach()
  set(sources)
  foreach(proto ${protos})
    get_filename_component(dir ${proto} DIRECTORY)
    get_filename_component(stem ${proto} NAME_WE)
    add_custom_command(
      OUTPUT ${out}/${stem}.pb.cc ${out}/${stem}.pb.h
      COMMAND ${run_protoc} --cpp_out=${out} -I ${dir} ${proto}
      DEPENDS ${proto}
      COMMENT "protoc ${stem}.proto"
      VERBATIM)
    list(APPEND sources ${out}/${stem}.pb.cc)
  endforeach()
  add_executable(message_bench ${PROTOACCEL_REPO_ROOT}/benchmarks/message_bench.cc ${sources})
  target_include_directories(message_bench PRIVATE ${out}
    ${PROTOACCEL_REPO_ROOT}/tests/libprotobuf)
  # GOOGLE_PROTOBUF_NO_RDTSC: a Map seeds its hash with the time stamp
  # counter, so a map's work (and instruction count) changed from run to
  # run by 0.5%; seeded from its address alone, it is the same each time.
  target_compile_definitions(message_bench PRIVATE
    "PROTOACCEL_DATASETS_DIR=\"${PROTOACCEL_DATASETS_DIR}\"" GOOGLE_PROTOBUF_NO_RDTSC)
  target_link_libraries(message_bench PRIVATE ${libprotobuf} benchmark::benchmark)
endfunction()
