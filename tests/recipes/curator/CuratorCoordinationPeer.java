// SPDX-License-Identifier: Apache-2.0
// A Curator 5 peer for the coordination interop tests
// (coordination_curator_test.cc): Curator's DistributedAtomicLong,
// DistributedDoubleBarrier and DistributedQueue on the same paths as
// zk::recipes' counter, double barrier and queue.
//
//   counter CONNECT PATH ROUNDS DIR  print "ready", wait for DIR/go, then add 1
//                                    ROUNDS times (each add retried until it
//                                    succeeds); print "added ROUNDS"
//   barrier CONNECT PATH N MEMBERS   MEMBERS members of the N-member double
//                                    barrier, a thread each: print "entered"
//                                    once enter() returns, "leaving" before
//                                    leave(), "left" after it
//   produce CONNECT PATH ITEM...     put each ITEM (a String, UTF-8) with a
//                                    DistributedQueue producer, in the
//                                    foreground; print "put N"
//   consume CONNECT PATH COUNT       consume with a DistributedQueue consumer;
//                                    print "took ITEM" for each item, exit
//                                    after COUNT items
// Exit code 0 when done, 1 on a failure (with its stack trace).
// Run as: java -cp <curator, zookeeper, guava, slf4j jars> CuratorCoordinationPeer.java ...
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;

public class CuratorCoordinationPeer {
  static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  static void waitForFile(Path file) throws Exception {
    while (!Files.exists(file)) Thread.sleep(10);  // the test creates it
  }

  static final QueueSerializer<String> STRINGS =
      new QueueSerializer<String>() {
        public byte[] serialize(String item) {
          return item.getBytes(StandardCharsets.UTF_8);
        }

        public String deserialize(byte[] bytes) {
          return new String(bytes, StandardCharsets.UTF_8);
        }
      };

  static void counter(CuratorFramework client, String path, int rounds, Path dir)
      throws Exception {
    DistributedAtomicLong counter = new DistributedAtomicLong(client, path, new RetryNTimes(50, 5));
    say("ready");
    waitForFile(dir.resolve("go"));
    for (int i = 0; i < rounds; ++i) {
      while (!counter.increment().succeeded()) {
        // Lost the optimistic race more often than the policy allows: again.
      }
    }
    say("added " + rounds);
  }

  static void barrier(CuratorFramework client, String path, int n, int members)
      throws Exception {
    AtomicBoolean failed = new AtomicBoolean(false);
    List<Thread> threads = new ArrayList<>();
    for (int m = 0; m < members; ++m) {
      Thread t =
          new Thread(
              () -> {
                try {
                  DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, path, n);
                  if (!barrier.enter(60, TimeUnit.SECONDS)) throw new Exception("enter timed out");
                  say("entered");
                  say("leaving");
                  if (!barrier.leave(60, TimeUnit.SECONDS)) throw new Exception("leave timed out");
                  say("left");
                } catch (Exception e) {
                  e.printStackTrace();
                  failed.set(true);
                }
              });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) t.join();
    if (failed.get()) throw new Exception("a barrier member failed");
  }

  static void produce(CuratorFramework client, String path, List<String> items) throws Exception {
    DistributedQueue<String> queue =
        QueueBuilder.builder(client, null, STRINGS, path).putInBackground(false).buildQueue();
    queue.start();
    for (String item : items) queue.put(item);
    say("put " + items.size());
    queue.close();
  }

  static void consume(CuratorFramework client, String path, int count) throws Exception {
    CountDownLatch taken = new CountDownLatch(count);
    QueueConsumer<String> consumer =
        new QueueConsumer<String>() {
          public void consumeMessage(String item) {
            say("took " + item);
            taken.countDown();
          }

          public void stateChanged(CuratorFramework c, ConnectionState state) {}
        };
    DistributedQueue<String> queue = QueueBuilder.builder(client, consumer, STRINGS, path).buildQueue();
    queue.start();
    if (!taken.await(60, TimeUnit.SECONDS)) throw new Exception("items not taken in time");
    queue.close();
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    CuratorFramework client =
        CuratorFrameworkFactory.newClient(args[1], 10000, 10000, new RetryNTimes(20, 100));
    client.start();
    int code = 0;
    try {
      if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) throw new Exception("no connection");
      switch (mode) {
        case "counter":
          counter(client, args[2], Integer.parseInt(args[3]), Path.of(args[4]));
          break;
        case "barrier":
          barrier(client, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
          break;
        case "produce":
          produce(client, args[2], List.of(args).subList(3, args.length));
          break;
        case "consume":
          consume(client, args[2], Integer.parseInt(args[3]));
          break;
        default:
          throw new Exception("unknown mode " + mode);
      }
    } catch (Exception e) {
      e.printStackTrace();
      code = 1;
    } finally {
      client.close();
    }
    System.exit(code);
  }
}
