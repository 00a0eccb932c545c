// SPDX-License-Identifier: Apache-2.0
#include "zklab/relay/relay_links.h"

#include <fstream>
#include <sstream>

namespace zk::lab {

std::filesystem::path relay_links_path(const std::filesystem::path& lab_dir) {
  return lab_dir / "relay.links";
}

std::string write_relay_links(const std::filesystem::path& lab_dir,
                              const std::vector<RelayLink>& links) {
  const auto path = relay_links_path(lab_dir);
  std::ofstream out(path, std::ios::trunc);
  out << "# zklab relay links: A B LISTEN TARGET [HELLO]: a relay of the link of nodes A < B\n"
      << "# on 127.0.0.1:LISTEN, forwarded to port TARGET of A or B; HELLO: the port written\n"
      << "# into the dialer's election hello (see relay_links.h)\n";
  for (const auto& l : links) {
    out << l.a << " " << l.b << " " << l.listen << " " << l.target;
    if (l.hello_port != 0) out << " " << l.hello_port;
    out << "\n";
  }
  out.close();
  if (!out) return "cannot write " + path.string();
  return {};
}

std::optional<std::vector<RelayLink>> read_relay_links(const std::filesystem::path& lab_dir,
                                                       std::string& error) {
  error.clear();
  const auto path = relay_links_path(lab_dir);
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::vector<RelayLink> links;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line.front() == '#') continue;
    std::istringstream fields(line);
    long a = 0, b = 0, listen = 0, target = 0, hello = 0;
    std::string extra;
    const bool four = static_cast<bool>(fields >> a >> b >> listen >> target);
    const bool has_hello = four && static_cast<bool>(fields >> hello);
    const bool bad_hello = !has_hello && !fields.eof();
    fields.clear();
    if (!four || bad_hello || (fields >> extra) || a < 1 || b <= a || listen < 1 ||
        listen > 65535 || target < 1 || target > 65535 ||
        (has_hello && (hello < 1 || hello > 65535))) {
      error = path.string() + ":" + std::to_string(number) + ": not a link: " + line;
      return std::nullopt;
    }
    links.push_back({static_cast<int>(a), static_cast<int>(b), static_cast<uint16_t>(listen),
                     static_cast<uint16_t>(target), static_cast<uint16_t>(hello)});
  }
  return links;
}

}  // namespace zk::lab
