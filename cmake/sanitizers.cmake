# Sanitizer and fuzzing builds (clang), for scripts/sanitizer-tests.sh and scripts/fuzz.sh:
#   -DARRAYHUB_SANITIZE=address  AddressSanitizer + UndefinedBehaviorSanitizer
#   -DARRAYHUB_SANITIZE=thread   ThreadSanitizer
#   -DARRAYHUB_FUZZ=ON           libFuzzer coverage in everything, and the fuzz targets
# Only our code is instrumented: Debian's gRPC, protobuf and abseil are not (see the scripts
# for what that means).
set(ARRAYHUB_SANITIZE "" CACHE STRING "Sanitizers to build with: address, thread, or empty")
option(ARRAYHUB_FUZZ "Build the libFuzzer targets (clang)" OFF)

if(ARRAYHUB_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
elseif(ARRAYHUB_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT ARRAYHUB_SANITIZE STREQUAL "")
  message(FATAL_ERROR "ARRAYHUB_SANITIZE must be address, thread or empty, not ${ARRAYHUB_SANITIZE}")
endif()

if(ARRAYHUB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ARRAYHUB_FUZZ needs clang (libFuzzer)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
