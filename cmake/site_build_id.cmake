# Writes ${SITE}/build-id.js, `self.ATTN_BUILD_ID = '<hash>';`, from a hash of
# every file of the built site: web/sw.js imports it, so a new build installs a
# new service worker with a new cache. Rewritten only when the hash changes.
#   cmake -DSITE=<site folder> -P cmake/site_build_id.cmake
get_filename_component(SITE "${SITE}" ABSOLUTE)
file(GLOB_RECURSE files RELATIVE "${SITE}" "${SITE}/*")
list(SORT files)
set(listing "")
foreach(f IN LISTS files)
  if(NOT f STREQUAL "build-id.js")
    file(SHA256 "${SITE}/${f}" h)
    string(APPEND listing "${f} ${h}\n")
  endif()
endforeach()
string(SHA256 id "${listing}")
string(SUBSTRING "${id}" 0 16 id)
set(text "self.ATTN_BUILD_ID = '${id}';\n")
set(old "")
if(EXISTS "${SITE}/build-id.js")
  file(READ "${SITE}/build-id.js" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${SITE}/build-id.js" "${text}")
endif()
