# tirxc.cmake: TIRx kernels (.tx) as a static library with C++ entry points (docs/cpp.md).
#
#   include(tirxc.cmake)
#   tirxc_add_kernels(<target> <kernel.tx>... [OPTIONS <tirxc options>...])
#
# For each kernel.tx, tirxc runs at build time -- again whenever the .tx file (or the tirxc
# program) changes -- and writes kernel.cu (the kernels and their entry points) and kernel.h
# into ${CMAKE_CURRENT_BINARY_DIR}/<target>/. <target> is a static library of those .cu files,
# compiled by nvcc; linking it gives the headers' folder (PUBLIC include directory), C++17 and
# the CUDA runtime (CUDA::cudart). Nothing of Python or tirxc is needed at run time.
#
# tirxc is the cache variable TIRXC_EXECUTABLE, else `tirxc` on PATH. OPTIONS go to every tirxc
# run, e.g. OPTIONS --arch sm_90a --line-info. The project must enable CUDA:
# project(... LANGUAGES CXX CUDA), and choose CMAKE_CUDA_ARCHITECTURES (sm_75 or newer; a kernel
# needing sm_90a or sm_100a needs that architecture, e.g. -DCMAKE_CUDA_ARCHITECTURES=90a).

include_guard(GLOBAL)
find_package(CUDAToolkit REQUIRED)
if(NOT TIRXC_EXECUTABLE)
  find_program(TIRXC_EXECUTABLE NAMES tirxc REQUIRED)
endif()

function(tirxc_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 TIRXC "" "" "OPTIONS")
  set(kernels ${TIRXC_UNPARSED_ARGUMENTS})
  if(NOT kernels)
    message(FATAL_ERROR "tirxc_add_kernels(${target}): no .tx files given")
  endif()
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  file(MAKE_DIRECTORY "${out_dir}")
  set(sources)
  foreach(tx IN LISTS kernels)
    get_filename_component(path "${tx}" ABSOLUTE)
    get_filename_component(stem "${tx}" NAME_WLE)
    set(cu "${out_dir}/${stem}.cu")
    set(header "${out_dir}/${stem}.h")
    add_custom_command(
      OUTPUT "${cu}" "${header}"
      COMMAND "${TIRXC_EXECUTABLE}" "${path}" -o "${cu}" --header "${header}" ${TIRXC_OPTIONS}
      DEPENDS "${path}" "${TIRXC_EXECUTABLE}"
      COMMENT "tirxc ${stem}.tx"
      VERBATIM)
    list(APPEND sources "${cu}")
  endforeach()
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC "${out_dir}")
  target_link_libraries(${target} PUBLIC CUDA::cudart)
  target_compile_features(${target} PUBLIC cxx_std_17)
  set_target_properties(${target} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                             POSITION_INDEPENDENT_CODE ON)
endfunction()
