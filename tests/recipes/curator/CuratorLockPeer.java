// SPDX-License-Identifier: Apache-2.0
// A Curator 5 peer for the interoperability tests (lock_curator_test.cc):
// Curator's own recipes on the same paths as zk::recipes and zkctl.
//
//   mutex CONNECT PATH ROUNDS DIR  wait for DIR/go, then ROUNDS times: take
//                                  InterProcessMutex PATH and run the shared
//                                  critical section on DIR's marker files
//   hold CONNECT PATH DIR          take the mutex, create DIR/java-holds,
//                                  release once DIR/java-release exists
//   try CONNECT PATH               print "acquired" or "busy" (300 ms wait)
//   latch CONNECT PATH ID          LeaderLatch as ID; print "leader ID" when
//                                  leader; close on SIGTERM
// Run as: java -cp <curator, zookeeper, guava, slf4j jars> CuratorLockPeer.java ...
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;

public class CuratorLockPeer {
  static void append(Path file, String line) throws Exception {
    Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  // The same check-and-set as the test's shell critical section.
  static void criticalSection(Path dir) throws Exception {
    Path held = dir.resolve("held");
    try {
      Files.createDirectory(held);
    } catch (FileAlreadyExistsException e) {
      append(dir.resolve("violations"), "overlap (curator)");
    }
    Path counter = dir.resolve("counter");
    int n = Files.exists(counter) ? Integer.parseInt(Files.readString(counter).trim()) : 0;
    Thread.yield();
    Files.writeString(counter, (n + 1) + "\n");
    Files.deleteIfExists(held);
  }

  static void waitForFile(Path file) throws Exception {
    while (!Files.exists(file)) Thread.sleep(10);  // the test creates it
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    CuratorFramework client =
        CuratorFrameworkFactory.newClient(args[1], 10000, 10000, new RetryNTimes(20, 100));
    client.start();
    client.blockUntilConnected(20, TimeUnit.SECONDS);
    try {
      switch (mode) {
        case "mutex": {
          Path dir = Path.of(args[4]);
          InterProcessMutex mutex = new InterProcessMutex(client, args[2]);
          System.out.println("ready");
          System.out.flush();
          waitForFile(dir.resolve("go"));
          for (int i = 0; i < Integer.parseInt(args[3]); ++i) {
            mutex.acquire();
            try {
              criticalSection(dir);
            } finally {
              mutex.release();
            }
          }
          break;
        }
        case "hold": {
          Path dir = Path.of(args[3]);
          InterProcessMutex mutex = new InterProcessMutex(client, args[2]);
          mutex.acquire();
          Files.createFile(dir.resolve("java-holds"));
          waitForFile(dir.resolve("java-release"));
          mutex.release();
          break;
        }
        case "try": {
          InterProcessMutex mutex = new InterProcessMutex(client, args[2]);
          if (mutex.acquire(300, TimeUnit.MILLISECONDS)) {
            System.out.println("acquired");
            mutex.release();
          } else {
            System.out.println("busy");
          }
          break;
        }
        case "latch": {
          LeaderLatch latch = new LeaderLatch(client, args[2], args[3]);
          Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
              latch.close();
              client.close();
            } catch (Exception e) {
              // exiting anyway
            }
          }));
          latch.start();
          latch.await();
          System.out.println("leader " + args[3]);
          System.out.flush();
          Thread.sleep(Long.MAX_VALUE);  // until SIGTERM
          break;
        }
        default:
          throw new IllegalArgumentException("unknown mode " + mode);
      }
    } finally {
      client.close();
    }
  }
}
