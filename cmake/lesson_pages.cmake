# The lessons' pages, listed from their files' names: each lesson is one file,
# src/ui/lessons/l<NN>_<name>.cpp, defining lesson_page_NN (lessons/lesson_parts.hpp).
# attn_lesson_pages(<var> <include dir>) sets <var> to those files, in lesson
# order, and writes <include dir>/lesson_pages.inc for card.cpp: their
# declarations and the table `pages` of them. A new lesson is its file, its row of
# src/core/play/lesson_preset.cpp and its tests; no list names it (docs/architecture.md).
function(attn_lesson_pages var include_dir)
  file(GLOB files CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/src/ui/lessons/l[0-9][0-9]_*.cpp")
  list(SORT files)
  set(decls "")
  set(rows "")
  set(expect 1)
  foreach(file IN LISTS files)
    get_filename_component(name "${file}" NAME)
    string(SUBSTRING "${name}" 1 2 nn)
    math(EXPR number "1${nn} - 100")
    if(NOT number EQUAL expect)
      message(FATAL_ERROR "src/ui/lessons: ${name} is not lesson ${expect}: lessons are numbered l01, l02, … without gaps")
    endif()
    math(EXPR expect "${expect} + 1")
    string(APPEND decls "extern const lesson_page lesson_page_${nn};  // ${name}\n")
    string(APPEND rows "    &lesson_page_${nn},\n")
  endforeach()
  file(CONFIGURE OUTPUT "${include_dir}/lesson_pages.inc" @ONLY CONTENT
"// Written by the build (cmake/lesson_pages.cmake) from the lessons' files, src/ui/lessons/l<NN>_*.cpp.
@decls@
constexpr const lesson_page* pages[] = {
@rows@};
")
  set(${var} "${files}" PARENT_SCOPE)
endfunction()
