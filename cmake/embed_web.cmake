# Embeds web/ (WEB) into OUT as FUNCTION (see embed_files.cmake), with the @noble library
# files its scripts import, taken from WEB/node_modules (installed by `npm ci` from
# web/package-lock.json) and served under /vendor/@noble/<package>@<version>/. Only the
# files reached from web/'s scripts through import and export-from statements are taken.
#
# Browsers cannot resolve a bare specifier such as '@noble/curves/bls12-381.js' without
# an import map, and the pages' CSP refuses inline scripts, import maps included. So the
# staged copies (in STAGE) have every bare '@noble/<package>/' specifier rewritten to
# that package's /vendor/ path; Node resolves the unrewritten sources from web/node_modules.
# The version in the path is what lets the server cache these files for a year.
cmake_minimum_required(VERSION 3.25)  # run with -P: IN_LIST, cmake_path
set(modules ${WEB}/node_modules/@noble)
if(NOT EXISTS ${modules})
  message(FATAL_ERROR "${WEB}/node_modules is missing: run `npm ci` in web/ (packaging/deps.sh does)")
endif()
file(REMOVE_RECURSE ${STAGE})

file(GLOB packages RELATIVE ${modules} ${modules}/*)
foreach(package ${packages})
  # One copy of each package: the walk below resolves '@noble/<package>/' to the top level.
  if(EXISTS ${modules}/${package}/node_modules)
    message(FATAL_ERROR "${modules}/${package}/node_modules: a second copy of a package is not embedded")
  endif()
  file(READ ${modules}/${package}/package.json manifest)
  string(JSON version_${package} GET "${manifest}" version)
endforeach()

# Copies the script SOURCE to TARGET with bare @noble specifiers rewritten, and sets
# `imports` to the specifiers of its import and export-from statements (lines that
# begin with import, export or the closing brace of a multi-line list: not comments).
function(stage_script source target)
  file(READ ${source} text)
  foreach(package ${packages})
    string(REGEX REPLACE "(from[ ]*['\"])@noble/${package}/" "\\1/vendor/@noble/${package}@${version_${package}}/"
           text "${text}")
  endforeach()
  file(WRITE ${target} "${text}")
  file(STRINGS ${source} lines REGEX "^(import|export|})[^'\"]* from ['\"]")
  set(found "")
  foreach(line IN LISTS lines)
    if(line MATCHES "from ['\"]([^'\"]+)['\"]")
      list(APPEND found "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(imports "${found}" PARENT_SCOPE)
endfunction()

# web/ itself, without npm's files.
file(GLOB_RECURSE names RELATIVE ${WEB} LIST_DIRECTORIES false ${WEB}/*)
list(FILTER names EXCLUDE REGEX "^(node_modules/|package(-lock)?\\.json$)")
set(pending "")
foreach(name ${names})
  if(name MATCHES "\\.js$")
    stage_script(${WEB}/${name} ${STAGE}/${name})
    list(FILTER imports INCLUDE REGEX "^@noble/")
    list(APPEND pending ${imports})
  else()
    get_filename_component(dir ${STAGE}/${name} DIRECTORY)
    file(COPY ${WEB}/${name} DESTINATION ${dir})
  endif()
endforeach()

# The library files they reach, by module path ("@noble/curves/abstract/bls.js").
set(done "")
while(pending)
  list(POP_FRONT pending module)
  if(module IN_LIST done)
    continue()
  endif()
  list(APPEND done ${module})
  if(NOT module MATCHES "^@noble/([^/]+)/(.+\\.js)$" OR NOT EXISTS ${WEB}/node_modules/${module})
    message(FATAL_ERROR "web/ imports ${module}, which is no file of web/node_modules/@noble")
  endif()
  set(package ${CMAKE_MATCH_1})
  stage_script(${WEB}/node_modules/${module}
               ${STAGE}/vendor/@noble/${package}@${version_${package}}/${CMAKE_MATCH_2})
  get_filename_component(dir ${module} DIRECTORY)
  foreach(spec ${imports})
    if(spec MATCHES "^\\.")
      cmake_path(SET spec NORMALIZE "${dir}/${spec}")
    elseif(NOT spec MATCHES "^@noble/")
      message(FATAL_ERROR "${module} imports ${spec}, which is not embedded")
    endif()
    list(APPEND pending ${spec})
  endforeach()
endwhile()

set(DIR ${STAGE})
set(SOURCE "web/ and the @noble files it imports")
include(${CMAKE_CURRENT_LIST_DIR}/embed_files.cmake)
