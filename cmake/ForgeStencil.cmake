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
    fs_precompile_clang_headers(FS${name} ${ARG_SOURCES})
  endif()
endfunction()

# fs_precompile_clang_headers(target sources...)
#   A library of several units that read clang's AST parses the same few
#   thousand lines of clang and LLVM headers in each unit: half of each unit's
#   compile time. With FS_PRECOMPILE_HEADERS (default ON) they are parsed
#   once per library, into a precompiled header every unit starts with.
#   Measured with g++ 12 -O3 on 2 cores: lib/Analysis's 50 units took 538 s
#   of compiling without it, 324 s with it plus 20 s for the header; the
#   header costs as much as it saves in a library of 4 to 8 units (Driver,
#   Rewrite, Pipeline), which are left alone.
function(fs_precompile_clang_headers target)
  list(LENGTH ARGN units)
  if(NOT FS_PRECOMPILE_HEADERS OR units LESS 16)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE
    <clang/AST/ASTContext.h> <clang/AST/Attr.h> <clang/AST/Decl.h>
    <clang/AST/DeclCXX.h> <clang/AST/DeclTemplate.h> <clang/AST/Expr.h>
    <clang/AST/ExprCXX.h> <clang/AST/RecursiveASTVisitor.h> <clang/AST/Stmt.h>
    <clang/AST/StmtCXX.h> <clang/AST/TypeLoc.h> <clang/Basic/SourceManager.h>
    <clang/Lex/Lexer.h> <llvm/ADT/StringRef.h> <llvm/Support/raw_ostream.h>
    <functional> <map> <memory> <optional> <set> <string> <vector>)
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
