# Included into upstream protobuf's project by ci/verify-upstream.sh --sanitize
# (CMAKE_PROJECT_protobuf_INCLUDE), whose builds are static. In static builds
# v36.0's conformance runner links the target jsoncpp_static, which Debian's
# jsoncpp (a shared library only) does not define; v22.0 builds jsoncpp from
# source and defines it. So, if nothing has by the end of the configure, it
# stands for the shared library that the conformance runner found.
cmake_language(DEFER CALL cmake_language EVAL CODE [[
  if (TARGET jsoncpp_lib AND NOT TARGET jsoncpp_static)
    add_library(jsoncpp_static INTERFACE IMPORTED)
    target_link_libraries(jsoncpp_static INTERFACE jsoncpp_lib)
  endif ()
]])
