// SPDX-License-Identifier: Apache-2.0
// The source of zk_test_pch (tests/CMakeLists.txt), the target that
// precompiles GoogleTest's and GoogleMock's headers for every test binary:
// CMake needs a source to compile the header with. It defines nothing.
