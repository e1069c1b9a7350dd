# liebatch_install_plugin_config(<destination>): at install time, writes the settings an installed
# liebatch compiles users' models with (plugin/config.install.in, its @PREFIX@ the prefix installed
# to) to <destination>, relative to that prefix.
function(liebatch_install_plugin_config destination)
  install(CODE "
    file(READ \"${PROJECT_BINARY_DIR}/plugin/config.install.in\" _lb_text)
    string(REPLACE \"@PREFIX@\" \"\${CMAKE_INSTALL_PREFIX}\" _lb_text \"\${_lb_text}\")
    set(_lb_to \"${destination}\")
    if(NOT IS_ABSOLUTE \"\${_lb_to}\")
      set(_lb_to \"\${CMAKE_INSTALL_PREFIX}/\${_lb_to}\")
    endif()
    message(STATUS \"Installing: \$ENV{DESTDIR}\${_lb_to}\")
    file(WRITE \"\$ENV{DESTDIR}\${_lb_to}\" \"\${_lb_text}\")
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\$ENV{DESTDIR}\${_lb_to}\")")
endfunction()
