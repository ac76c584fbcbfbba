# floe_module(NAME <name> SOURCES ... DEPS ...)
#   One static library per module, target floe_<name>, alias floe::<name>.
#   Unit tests in the module's tests/ folder become floe_<name>_tests, linked
#   with floe::testing (src/floe/testing) and gtest.
function(floe_module)
  cmake_parse_arguments(M "" "NAME" "SOURCES;DEPS;TEST_DEPS" ${ARGN})
  string(REPLACE "/" "_" target_suffix ${M_NAME})
  set(target floe_${target_suffix})
  add_library(${target} STATIC ${M_SOURCES})
  add_library(floe::${target_suffix} ALIAS ${target})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${target} PUBLIC ${M_DEPS})
  if(FLOE_BUILD_TESTS AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/tests)
    file(GLOB test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/*_test.cc)
    if(test_sources)
      add_executable(${target}_tests ${test_sources})
      target_link_libraries(${target}_tests PRIVATE ${target} ${M_TEST_DEPS} floe::testing
                            GTest::gtest GTest::gtest_main)
      target_compile_definitions(${target}_tests PRIVATE
        FLOE_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
      gtest_discover_tests(${target}_tests DISCOVERY_TIMEOUT 60
                           PROPERTIES LABELS unit)
    endif()
  endif()
endfunction()
