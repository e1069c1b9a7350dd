# The layout the code promises (docs/architecture.md §1, docs/spaces-and-models.md §7, README), checked
# on the sources:
#  1. No include runs up a floor of include/liebatch/. The floors, bottom to top:
#       1 numbers     scalars, vectors, small matrices and solves, series: the root headers of floor_1
#                     below, and detail/ (the series' generated coefficient tables)
#       2 groups      Lie algebras and groups: floor_2
#       3 spaces      homogeneous spaces, and the contracts of a space, a model, a constrained system:
#                     floor_3
#       4 models/     the models
#       5 methods/    the integrators
#       6 sampling/   initial states: unit points (Philox, Sobol') and energy levels
#       7 trajectory/ one trajectory's stepping, sections and drivers
#       8 ensemble/   the engine and its backends
#     Headers on one floor may include each other. Every header at the root is named in exactly one
#     of floor_1, floor_2, floor_3 and every folder has a floor, so a new header or folder fails the
#     check until it is given one here. liebatch.hpp, the umbrella header, is exempt: it may include
#     anything, and as it sits above every floor nothing in include/liebatch/ may include it.
#     methods/ and models/ include nothing of each other: a method takes what it needs of a model
#     through a concept (CotangentModel, CotangentBlockModel, ConstrainedModel), never by name.
#  2. The commands write through the Sink interface only (cli/outputs/sink.hpp): no command source names
#     HDF5, so a second output format does not touch them.
# Usage: cmake -DROOT=<source dir> -P layout.cmake
set(floor_names - numbers groups spaces models methods sampling trajectory ensemble umbrella)  # by floor; 0 unused
set(floor_1 config.hpp scalar.hpp pack.hpp vec.hpp mat3.hpp dual.hpp double_word.hpp linear_solve.hpp
            series.hpp series_refined.hpp dexpinv_series.hpp)
set(floor_2 so3.hpp se3.hpp rn.hpp)
set(floor_3 homogeneous_space.hpp group_space.hpp sphere.hpp tangent_sphere.hpp coadjoint.hpp
            product.hpp model.hpp model_parameters.hpp constrained_model.hpp constrained_system.hpp)
set(floor_detail 1)
set(floor_models 4)
set(floor_methods 5)
set(floor_sampling 6)
set(floor_trajectory 7)
set(floor_ensemble 8)
set(umbrella liebatch.hpp)
set(floor_umbrella 9)
set(root_floors 1 2 3)

function(floor_of path out)  # path relative to include/liebatch; "" when it has no floor
  if(path MATCHES "^([a-z_]+)/")
    set(${out} "${floor_${CMAKE_MATCH_1}}" PARENT_SCOPE)
    return()
  endif()
  if(path STREQUAL umbrella)
    set(${out} ${floor_umbrella} PARENT_SCOPE)
    return()
  endif()
  foreach(f IN LISTS root_floors)
    list(FIND floor_${f} "${path}" i)
    if(i GREATER -1)
      set(${out} ${f} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

function(floor_label floor out)  # "3 (spaces)"
  list(GET floor_names ${floor} name)
  set(${out} "${floor} (${name})" PARENT_SCOPE)
endfunction()

set(bad "")
file(GLOB_RECURSE headers RELATIVE ${ROOT}/include/liebatch ${ROOT}/include/liebatch/*.hpp ${ROOT}/include/liebatch/*.cuh)
set(named "")
foreach(f IN LISTS root_floors)
  foreach(h IN LISTS floor_${f})
    list(FIND named ${h} seen)
    if(seen GREATER -1)
      string(APPEND bad "  ${h}: named on two floors in tests/layout.cmake\n")
    elseif(NOT EXISTS ${ROOT}/include/liebatch/${h})
      string(APPEND bad "  ${h}: named on floor ${f} in tests/layout.cmake but not in include/liebatch/\n")
    endif()
    list(APPEND named ${h})
  endforeach()
endforeach()
foreach(h IN LISTS headers)
  if(h STREQUAL umbrella)
    continue()
  endif()
  floor_of(${h} own)
  if(own STREQUAL "")
    if(h MATCHES "/")
      string(APPEND bad "  ${h}: a folder with no floor (add it to tests/layout.cmake)\n")
    else()
      string(APPEND bad "  ${h}: a root header with no floor (name it in floor_1, floor_2 or floor_3 of tests/layout.cmake)\n")
    endif()
    continue()
  endif()
  get_filename_component(dir ${h} DIRECTORY)
  file(STRINGS ${ROOT}/include/liebatch/${h} lines REGEX "^#include [\"<]")
  foreach(l IN LISTS lines)
    if(l MATCHES "^#include \"([^\"]+)\"")
      cmake_path(SET target NORMALIZE "${dir}/${CMAKE_MATCH_1}")
      if(dir STREQUAL "")
        cmake_path(SET target NORMALIZE "${CMAKE_MATCH_1}")
      endif()
    elseif(l MATCHES "^#include <liebatch/([^>]+)>")
      set(target ${CMAKE_MATCH_1})
    else()
      continue()
    endif()
    floor_of(${target} to)
    if((h MATCHES "^methods/" AND target MATCHES "^models/") OR (h MATCHES "^models/" AND target MATCHES "^methods/"))
      string(APPEND bad "  ${h} includes ${target}: methods and models name nothing of each other\n")
    endif()
    if(to GREATER own)
      floor_label(${own} from_label)
      floor_label(${to} to_label)
      string(APPEND bad "  ${h} includes ${target}: up from floor ${from_label} to ${to_label}\n")
    endif()
  endforeach()
endforeach()

foreach(f command.hpp command.cpp run.cpp converge.cpp validate.cpp list.cpp)
  file(STRINGS ${ROOT}/cli/commands/${f} lines REGEX "hdf5|h5_sink|H5[A-Z]")
  foreach(l IN LISTS lines)
    string(APPEND bad "  cli/commands/${f} writes HDF5 itself, not through Sink: ${l}\n")
  endforeach()
endforeach()

if(bad)
  message(FATAL_ERROR "layout broken:\n${bad}")
endif()
list(LENGTH headers n)
message(STATUS "layout: ${n} headers on 8 floors, no include up a floor, methods apart from models; the commands write through Sink")
