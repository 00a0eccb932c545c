// SPDX-License-Identifier: Apache-2.0
#include "zkctl/interactive_shell.h"

#include <editline/readline.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string_view>

#include "zkctl/line_completion.h"

namespace zkctl {

namespace {

constexpr int kHistoryLines = 1000;

std::string history_file() {
  const char* home = std::getenv("HOME");
  return home == nullptr || *home == '\0' ? std::string() : std::string(home) + "/.zkctl_history";
}

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

// libedit's completion callbacks take no user data: the shell running now
// (one per process) and the candidates of the TAB being handled.
LineInterpreter* completing_interpreter = nullptr;
std::vector<std::string> pending_candidates;

// rl_completion_matches' generator: the pending candidates, one per call.
char* next_candidate(const char* /*text*/, int state) {
  static size_t next = 0;
  if (state == 0) next = 0;
  if (next >= pending_candidates.size()) return nullptr;
  return strdup(pending_candidates[next++].c_str());
}

// rl_attempted_completion_function: the word is [start, end) of the line,
// the cursor at `end` (libedit's line buffer need not end there with a NUL).
char** complete_word(const char* text, int /*start*/, int end) {
  rl_attempted_completion_over = 1;  // never fall back to file names
  if (rl_line_buffer == nullptr || end < 0) return nullptr;
  static const std::vector<CommandWords> commands = shell_command_words();
  const LineCompletion completion = complete_line(
      std::string_view(rl_line_buffer, static_cast<size_t>(end)), static_cast<size_t>(end),
      commands,
      [](const std::string& path) { return completing_interpreter->list_children(path); });
  if (completion.candidates.empty()) return nullptr;
  // A command or option is done when completed; a path may go on ("/a" -> "/a/b").
  rl_completion_append_character = completion.kind == CompletionKind::kPath ? '\0' : ' ';
  pending_candidates = completion.candidates;
  return rl_completion_matches(text, next_candidate);
}

// Fired watches are printed as they fire, also while the shell waits for a
// line (as zkCli prints them): the watch's thread writes a byte to a pipe,
// and libedit reads its keys through read_key, which waits for a key or that
// byte. The pipe, and the interpreter whose events it announces.
int wake_read_fd = -1;
int wake_write_fd = -1;
LineInterpreter* printing_interpreter = nullptr;

// Prints the fired watches on the lines below the one being edited, then
// draws the prompt and the line again.
void print_watches_while_editing() {
  char drained[64];
  while (read(wake_read_fd, drained, sizeof drained) > 0) {
  }
  std::fputs("\n", stdout);
  std::fflush(stdout);
  printing_interpreter->print_fired_watches();
  std::cout.flush();
  rl_forced_update_display();
}

// rl_getc_function: the next key of `in`, or -1 at its end.
int read_key(FILE* in) {
  const int fd = fileno(in);
  for (;;) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_read_fd, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if ((fds[1].revents & POLLIN) != 0) print_watches_while_editing();
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    unsigned char key = 0;
    const ssize_t got = read(fd, &key, 1);
    if (got == 1) return key;
    if (got < 0 && errno == EINTR) continue;
    return -1;
  }
}

}  // namespace

ExitCode run_interactive(LineInterpreter& interpreter) {
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) == 0) {
    wake_read_fd = wake[0];
    wake_write_fd = wake[1];
    printing_interpreter = &interpreter;
    interpreter.on_watch_fired([] {
      const char byte = 1;
      (void)!write(wake_write_fd, &byte, 1);  // a full pipe has announced it already
    });
    rl_getc_function = read_key;  // before libedit initialises: it reads it once
  }
  using_history();
  stifle_history(kHistoryLines);
  const std::string history = history_file();
  if (!history.empty()) read_history(history.c_str());
  completing_interpreter = &interpreter;
  rl_basic_word_break_characters = " \t\n";  // as complete_line splits words
  rl_attempted_completion_function = complete_word;

  ExitCode last = ExitCode::kOk;
  for (;;) {
    interpreter.print_fired_watches();
    std::unique_ptr<char, FreeDeleter> line(readline(interpreter.prompt().c_str()));
    if (!line) break;  // end of input
    const std::string text(line.get());
    if (text.find_first_not_of(" \t") != std::string::npos) add_history(text.c_str());
    const LineOutcome outcome = interpreter.run_line(text, "zkctl");
    last = outcome.exit_code;
    if (outcome.quit) break;
  }
  rl_attempted_completion_function = nullptr;
  completing_interpreter = nullptr;
  if (!history.empty()) write_history(history.c_str());
  if (printing_interpreter != nullptr) {
    interpreter.on_watch_fired(nullptr);
    printing_interpreter = nullptr;
    close(wake_read_fd);
    close(wake_write_fd);
  }
  return last;
}

}  // namespace zkctl
