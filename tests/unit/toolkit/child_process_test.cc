// SPDX-License-Identifier: Apache-2.0
// zk::toolkit::ChildProcess against real children (/bin/sh and coreutils):
// what a child gets (argv, environment, stdio, descriptors, signal mask and
// dispositions, session), signals, reaping, and failures to start.
#include "toolkit/child_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include "tests/common/temp_dir.h"

namespace zk::toolkit {
namespace {

using namespace std::chrono_literals;

class ChildProcessTest : public ::testing::Test {
 protected:
  std::filesystem::path log() const { return dir_ / "out.log"; }
  std::string log_text() const {
    std::ifstream in(log());
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // Runs `script` under /bin/sh with output to log(); its wait status.
  int run_shell(const std::string& script, ChildSpec spec = {}) {
    spec.argv = {"/bin/sh", "-c", script};
    spec.log = log();
    std::string error;
    auto child = ChildProcess::start(spec, error);
    EXPECT_TRUE(child) << error;
    if (!child) return -1;
    auto status = child->wait_for_exit(30s);
    EXPECT_TRUE(status) << script;
    return status.value_or(-1);
  }

  zk::test::TempDir temp_{"child_process"};
  const std::filesystem::path& dir_ = temp_.path();
};

TEST_F(ChildProcessTest, OutputAndErrorsAreAppendedToTheLogAndStdinIsEmpty) {
  { std::ofstream(log()) << "before\n"; }
  EXPECT_EQ(run_shell("echo out; echo err >&2; read x; echo \"read=$? [$x]\""), 0);
  EXPECT_EQ(run_shell("echo again"), 0);
  EXPECT_EQ(log_text(), "before\nout\nerr\nread=1 []\nagain\n");
}

TEST_F(ChildProcessTest, ArgvIsPassedAsGiven) {
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", "printf '%s|' \"$0\" \"$@\"", "zero", "a b", ""};
  spec.log = log();
  std::string error;
  auto child = ChildProcess::start(spec, error);
  ASSERT_TRUE(child) << error;
  ASSERT_TRUE(child->wait_for_exit(30s));
  EXPECT_EQ(log_text(), "zero|a b||");
}

TEST_F(ChildProcessTest, SettingsAreAddedToTheEnvironmentReplacingSameNamedOnes) {
  ::setenv("ZK_CHILD_TEST_KEPT", "parent", 1);
  ::setenv("ZK_CHILD_TEST_REPLACED", "parent", 1);
  ChildSpec spec;
  spec.environment = {"ZK_CHILD_TEST_REPLACED=child", "ZK_CHILD_TEST_NEW=new=value"};
  EXPECT_EQ(run_shell("env | grep '^ZK_CHILD_TEST_' | sort", spec), 0);
  EXPECT_EQ(
      log_text(),
      "ZK_CHILD_TEST_KEPT=parent\nZK_CHILD_TEST_NEW=new=value\nZK_CHILD_TEST_REPLACED=child\n");
  ::unsetenv("ZK_CHILD_TEST_KEPT");
  ::unsetenv("ZK_CHILD_TEST_REPLACED");
}

TEST_F(ChildProcessTest, SearchPathFindsAProgramByNameAndKeepsItsArgvZero) {
  ChildSpec spec;
  spec.argv = {"sh", "-c", "echo \"$0\""};
  spec.search_path = true;
  spec.log = log();
  std::string error;
  auto child = ChildProcess::start(spec, error);
  ASSERT_TRUE(child) << error;
  auto status = child->wait_for_exit(30s);
  ASSERT_TRUE(status);
  EXPECT_EQ(ChildProcess::shell_code(*status), 0);
  EXPECT_EQ(log_text(), "sh\n");

  spec.argv = {"zk-no-such-program-anywhere"};
  EXPECT_FALSE(ChildProcess::start(spec, error));
  EXPECT_EQ(error, std::strerror(ENOENT));
}

TEST_F(ChildProcessTest, AProgramThatCannotRunIsAnErrorAndLeavesNoChild) {
  ChildSpec spec;
  spec.argv = {(dir_ / "missing").string()};
  std::string error;
  EXPECT_FALSE(ChildProcess::start(spec, error));
  EXPECT_EQ(error, std::strerror(ENOENT));

  // Not executable: exec itself fails, in the child.
  const auto script = dir_ / "not-executable";
  std::ofstream(script) << "#!/bin/sh\nexit 0\n";
  ::chmod(script.c_str(), 0644);
  spec.argv = {script.string()};
  EXPECT_FALSE(ChildProcess::start(spec, error));
  EXPECT_EQ(error, std::strerror(EACCES));
  // That child was reaped: this process has no child left.
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);

  spec.argv = {"/bin/true"};
  spec.log = dir_ / "no-such-dir" / "out.log";
  EXPECT_FALSE(ChildProcess::start(spec, error));
  EXPECT_NE(error.find("no-such-dir"), std::string::npos) << error;
}

TEST_F(ChildProcessTest, ExitStatusReadsAsAShellWould) {
  EXPECT_EQ(ChildProcess::shell_code(run_shell("exit 7")), 7);
  EXPECT_EQ(ChildProcess::shell_code(run_shell("kill -KILL $$")), 128 + SIGKILL);
}

TEST_F(ChildProcessTest, SignalsReachTheChildAndItIsReapedWithoutBlocking) {
  ChildSpec spec;
  spec.argv = {"/bin/sleep", "60"};
  std::string error;
  auto child = ChildProcess::start(spec, error);
  ASSERT_TRUE(child) << error;
  EXPECT_FALSE(child->poll_exit());
  EXPECT_FALSE(child->wait_for_exit(0ms));
  ASSERT_TRUE(child->signal(SIGSTOP));
  EXPECT_FALSE(child->poll_exit());  // stopped still runs
  ASSERT_TRUE(child->signal(SIGTERM));
  ASSERT_TRUE(child->signal(SIGCONT));
  auto status = child->wait_for_exit(30s);
  ASSERT_TRUE(status);
  EXPECT_EQ(ChildProcess::shell_code(*status), 128 + SIGTERM);
  EXPECT_EQ(child->poll_exit(), status);  // the same, once reaped
  EXPECT_FALSE(child->signal(SIGTERM));   // reaped: its pid is not ours any more
}

TEST_F(ChildProcessTest, TheChildStartsWithNoSignalBlockedAndItsHandlersReset) {
  // Blocked and handled here; ignored here (an ignored signal stays ignored).
  sigset_t usr1, previous_mask;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &usr1, &previous_mask), 0);
  struct sigaction handled {
  }, ignored{}, previous_term{}, previous_usr2{};
  handled.sa_handler = +[](int) {};
  ignored.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGTERM, &handled, &previous_term), 0);
  ASSERT_EQ(::sigaction(SIGUSR2, &ignored, &previous_usr2), 0);

  EXPECT_EQ(run_shell("exec grep -E '^Sig(Blk|Ign)' /proc/self/status"), 0);

  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  ::sigaction(SIGTERM, &previous_term, nullptr);
  ::sigaction(SIGUSR2, &previous_usr2, nullptr);
  const std::string text = log_text();
  EXPECT_NE(text.find("SigBlk:\t0000000000000000\n"), std::string::npos) << text;
  // SIGUSR2 (bit SIGUSR2 - 1) is still ignored.
  const auto ign = text.find("SigIgn:\t");
  ASSERT_NE(ign, std::string::npos) << text;
  const auto mask = std::stoull(text.substr(ign + 8, 16), nullptr, 16);
  EXPECT_NE(mask & (1ull << (SIGUSR2 - 1)), 0u) << text;
}

TEST_F(ChildProcessTest, DescriptorsWithoutCloseOnExecAreInherited) {
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(null_fd, 0);
  const int inherited = ::fcntl(null_fd, F_DUPFD, 200);
  const int closed = ::fcntl(null_fd, F_DUPFD_CLOEXEC, 210);
  ::close(null_fd);
  ASSERT_GE(inherited, 200);
  ASSERT_GE(closed, 210);
  EXPECT_EQ(run_shell("ls /proc/$$/fd | sort -n | tr '\\n' ' '"), 0);
  ::close(inherited);
  ::close(closed);
  const std::string text = " " + log_text();
  EXPECT_NE(text.find(" " + std::to_string(inherited) + " "), std::string::npos) << text;
  EXPECT_EQ(text.find(" " + std::to_string(closed) + " "), std::string::npos) << text;
}

TEST_F(ChildProcessTest, ANewSessionIsLedByTheChild) {
  // Field 6 of /proc/PID/stat is the session id.
  const std::string script = "read -r stat < /proc/$$/stat; set -- ${stat#*) }; echo $$ $4";
  ChildSpec spec;
  spec.new_session = true;
  EXPECT_EQ(run_shell(script, spec), 0);
  EXPECT_EQ(run_shell(script), 0);
  std::istringstream lines(log_text());
  pid_t pid = 0, session = 0;
  lines >> pid >> session;
  EXPECT_EQ(session, pid);
  lines >> pid >> session;
  EXPECT_EQ(session, ::getsid(0));
}

TEST_F(ChildProcessTest, AnOwnedChildIsKilledWhenItsOwnerGoesADetachedOneIsNot) {
  ChildSpec spec;
  spec.argv = {"/bin/sleep", "60"};
  std::string error;
  pid_t owned = -1;
  {
    auto child = ChildProcess::start(spec, error);
    ASSERT_TRUE(child) << error;
    owned = child->pid();
  }
  EXPECT_EQ(::waitpid(owned, nullptr, WNOHANG), -1);  // killed and reaped
  EXPECT_EQ(errno, ECHILD);

  pid_t detached = -1;
  {
    auto child = ChildProcess::start(spec, error);
    ASSERT_TRUE(child) << error;
    detached = child->detach();
    EXPECT_EQ(detached, child->pid());
    EXPECT_FALSE(child->signal(0));
  }
  EXPECT_EQ(::waitpid(detached, nullptr, WNOHANG), 0);  // still runs
  ::kill(detached, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(detached, &status, 0), detached);
  EXPECT_TRUE(WIFSIGNALED(status));
}

}  // namespace
}  // namespace zk::toolkit
