// StallingTransferer is the file copier of Kafka's LocalTieredStorage
// (its transferer.class) for the tier-copy-failed scenario: it copies
// like the default one. When a file named stall-copy, holding a number
// N, is in the directory above the remote root, the first N segments'
// .log files are copied as usual; the next one is copied whole, its path
// is written to copy-stalled beside stall-copy, and the copy never
// returns: the broker has written the segment's COPY_SEGMENT_STARTED to
// __remote_log_metadata and waits, so a SIGKILL leaves the copy started
// and never finished, its .log in the store. A broker started without
// stall-copy copies as usual.

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.server.log.remote.storage.Transferer;

public class StallingTransferer implements Transferer {
    // LocalTieredStorage makes its transferer once per broker process.
    private static final AtomicInteger LOGS_COPIED = new AtomicInteger();

    @Override
    public void transfer(File from, File to) throws IOException {
        Files.copy(from.toPath(), to.toPath(), StandardCopyOption.REPLACE_EXISTING);
        if (!to.getName().endsWith(".log")) {
            return;
        }
        // to is ROOT/kafka-tiered-storage/PARTITION/FILE: the marker is in ROOT.
        File root = to.getParentFile().getParentFile().getParentFile();
        File mark = new File(root, "stall-copy");
        if (!mark.exists()) {
            return;
        }
        int pass = Integer.parseInt(new String(Files.readAllBytes(mark.toPath()), StandardCharsets.UTF_8).trim());
        if (LOGS_COPIED.getAndIncrement() < pass) {
            return;
        }
        File tmp = new File(root, "copy-stalled.tmp");
        Files.write(tmp.toPath(), to.getPath().getBytes(StandardCharsets.UTF_8));
        Files.move(tmp.toPath(), new File(root, "copy-stalled").toPath(), StandardCopyOption.ATOMIC_MOVE);
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // The broker gives up the copy (it is shutting down): it stays unfinished.
                throw new IOException("copy stalled on purpose and interrupted", e);
            }
        }
    }

    @Override
    public void transfer(ByteBuffer from, File to) throws IOException {
        try (FileChannel ch = FileChannel.open(to.toPath(), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (from.hasRemaining()) {
                ch.write(from);
            }
        }
    }
}
