# -*- Python -*-
# Runs every gtest binary under unittests/bin as lit tests, one per TEST().
import os

import lit.formats

config.name = "ForgeStencil-Unit"
config.suffixes = []
config.test_source_root = config.fs_unittests_dir
config.test_exec_root = config.fs_unittests_dir
config.test_format = lit.formats.GoogleTest(".", "Tests")
config.environment["HOME"] = os.environ.get("HOME", "/tmp")
config.environment["PATH"] = os.environ.get("PATH", "")
config.environment["LC_ALL"] = "C"
