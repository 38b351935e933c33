# Helpers shared by every part of the build.

set(FS_WARNING_FLAGS -Wall -Wextra -Wno-unused-parameter)

# fs_all_targets_exist(<out-var> deps...)
#   Sets <out-var> to FALSE when one of the project's own libraries (FS*) in
#   deps is not part of this build (FS_PARTS, FS_ENABLE_LLVM), else TRUE.
function(fs_all_targets_exist out)
  foreach(dep ${ARGN})
    if(dep MATCHES "^FS" AND NOT TARGET ${dep})
      set(${out} FALSE PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} TRUE PARENT_SCOPE)
endfunction()

# fs_add_library(Name [LLVM] SOURCES... [DEPENDS libs...])
#   A library of lib/<Name>. LLVM marks a library that needs LLVM/Clang; it is
#   skipped when FS_ENABLE_LLVM is OFF.
function(fs_add_library name)
  cmake_parse_arguments(ARG "LLVM" "" "SOURCES;DEPENDS" ${ARGN})
  if(ARG_LLVM AND NOT FS_ENABLE_LLVM)
    return()
  endif()
  add_library(FS${name} STATIC ${ARG_SOURCES})
  target_include_directories(FS${name} PUBLIC
    ${FS_SOURCE_DIR}/include ${CMAKE_BINARY_DIR}/include)
  target_compile_options(FS${name} PRIVATE ${FS_WARNING_FLAGS})
  target_link_libraries(FS${name} PUBLIC ${ARG_DEPENDS})
  if(ARG_LLVM)
    fs_use_llvm(FS${name})
  endif()
endfunction()

# Link the shared clang-cpp and LLVM libraries: the build stays small and
# links fast. FS_STATIC_LLVM links the static component archives instead
# (and the C++ runtime statically), for an fs-rewrite that runs on a host
# without LLVM (scripts/build-portable.sh).
function(fs_use_llvm target)
  target_include_directories(${target} SYSTEM PUBLIC
    ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
  target_compile_definitions(${target} PUBLIC ${LLVM_DEFINITIONS_LIST})
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${target} PUBLIC -fno-rtti)
  endif()
  if(FS_STATIC_LLVM)
    # The archives themselves, not the exported targets: those name the
    # LLVM shared library as a dependency. The linker takes from the group
    # only the objects something refers to.
    file(GLOB archives "${LLVM_LIBRARY_DIR}/libclang[A-Z]*.a")
    file(GLOB llvm_archives "${LLVM_LIBRARY_DIR}/libLLVM*.a")
    # LLVMSupport's compression: the static archives where there are any.
    find_library(FS_ZSTD NAMES libzstd.a zstd libzstd.so.1 REQUIRED)
    find_library(FS_ZLIB NAMES libz.a z REQUIRED)
    target_link_libraries(${target} PUBLIC
      -Wl,--start-group ${archives} ${llvm_archives} -Wl,--end-group
      ${FS_ZSTD} ${FS_ZLIB} ${CMAKE_DL_LIBS} pthread)
    target_link_options(${target} PUBLIC -static-libstdc++ -static-libgcc)
  else()
    target_link_libraries(${target} PUBLIC clang-cpp LLVM)
  endif()
endfunction()

# fs_add_tool(name [LLVM] SOURCES... [DEPENDS libs...])
function(fs_add_tool name)
  cmake_parse_arguments(ARG "LLVM" "" "SOURCES;DEPENDS" ${ARGN})
  if(ARG_LLVM AND NOT FS_ENABLE_LLVM)
    return()
  endif()
  # A tool whose libraries are not part of this build (FS_PARTS) is skipped.
  fs_all_targets_exist(have ${ARG_DEPENDS})
  if(NOT have)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${FS_WARNING_FLAGS})
  target_include_directories(${name} PRIVATE
    ${FS_SOURCE_DIR}/include ${CMAKE_BINARY_DIR}/include)
  target_link_libraries(${name} PRIVATE ${ARG_DEPENDS})
  if(ARG_LLVM)
    fs_use_llvm(${name})
  endif()
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  set_property(GLOBAL APPEND PROPERTY FS_TOOLS ${name})
endfunction()

# fs_add_unittest(Name SOURCES... DEPENDS libs...)
#   A gtest binary under unittests/, run by lit's GoogleTest format.
function(fs_add_unittest name)
  cmake_parse_arguments(ARG "LLVM" "" "SOURCES;DEPENDS" ${ARGN})
  if(ARG_LLVM AND NOT FS_ENABLE_LLVM)
    return()
  endif()
  fs_all_targets_exist(have ${ARG_DEPENDS})
  if(NOT have)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${FS_WARNING_FLAGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPENDS} GTest::gtest_main)
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/unittests/bin)
  set_property(GLOBAL APPEND PROPERTY FS_UNITTESTS ${name})
endfunction()
