// Forcing collections in the Java twins of the GC microbenchmarks (bench/java/).
// Java has System.gc() for a full collection but no "young collection now" call, so a
// young collection is forced by allocating garbage until the young collector's count
// (GarbageCollectorMXBean "Copy" for SerialGC, "PS Scavenge" for ParallelGC, or any
// "Young" one) goes up. Before forcing, markForced() prints "FORCED_FROM <id>": the
// -Xlog:gc id (GC(n)) of the first forced collection, which is the number of
// collections so far, so that bench/lib/java.mjs can tell forced pauses from others.
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

final class Gc {
  static volatile Object sink;

  private Gc() {}

  static GarbageCollectorMXBean young() {
    for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
      String n = b.getName();
      if (n.equals("Copy") || n.contains("Scavenge") || n.contains("Young") || n.equals("ParNew")) return b;
    }
    throw new IllegalStateException("no young collector bean");
  }

  static long total() {
    long t = 0;
    for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) t += Math.max(0, b.getCollectionCount());
    return t;
  }

  static void markForced() {
    System.out.println("FORCED_FROM " + total());
    System.out.flush();
  }

  /** Allocates 1 KB arrays until one more young collection has happened, n times. */
  static void minorGc(int n) {
    GarbageCollectorMXBean y = young();
    for (int i = 0; i < n; i++) {
      long c = y.getCollectionCount();
      while (y.getCollectionCount() == c) {
        for (int k = 0; k < 1024; k++) sink = new byte[1024];
      }
    }
    sink = null;
  }

  static void gc(int n) {
    for (int i = 0; i < n; i++) System.gc();
  }

  static int arg(String[] args, int i, int dflt) {
    return args.length > i ? Integer.parseInt(args[i]) : dflt;
  }
}
