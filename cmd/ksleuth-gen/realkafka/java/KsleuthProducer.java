// KsleuthProducer drives one Java KafkaProducer from commands on stdin, so
// that a Go test can send, commit, abort and SIGKILL a real client and know
// which sends the broker acknowledged before the kill.
//
// Arguments are producer properties (key=value). Commands, one a line:
//
//	send ID TOPIC PARTITION KEYHEX|- VALUEHEX [HEADERKEY=VALUEHEX ...]
//	init | begin | commit | abort | flush | close
//
// Replies on stdout, one a line, flushed at once so that nothing is lost
// in a buffer when the process is killed:
//
//	ack ID PARTITION OFFSET   nack ID MESSAGE   ok COMMAND   fail COMMAND MESSAGE
//
// With --bulk TOPIC as the first arguments it reads binary records from
// stdin instead and sends them to partition 0 of TOPIC, with no reply per
// record: a bulk load of a gigabyte would drown in text. A record is, big
// endian: int32 key length (-1 for null, -2 for the end of the input),
// key, int32 value length (-1 for null), value, int16 header count, and
// per header int16 key length, UTF-8 key, int32 value length, value. At
// the end it flushes and prints "ok bulk SENT ACKED FAILED [FIRST ERROR]".
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class KsleuthProducer {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private static synchronized void reply(String line) {
        OUT.println(line);
    }

    private static byte[] hex(String s) {
        return s.equals("-") ? null : HexFormat.of().parseHex(s);
    }

    private static String oneLine(Exception e) {
        String m = e.getClass().getSimpleName() + ": " + e.getMessage();
        return m.replace('\n', ' ');
    }

    private static byte[] readBytes(DataInputStream in, int n) throws IOException {
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    private static void bulk(KafkaProducer<byte[], byte[]> producer, String topic) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 20));
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>("");
        long sent = 0;
        while (true) {
            int keyLen = in.readInt();
            if (keyLen == -2) {
                break;
            }
            byte[] key = readBytes(in, keyLen);
            byte[] value = readBytes(in, in.readInt());
            int nh = in.readShort();
            List<Header> headers = new ArrayList<>(nh);
            for (int i = 0; i < nh; i++) {
                String hk = new String(readBytes(in, in.readShort()), StandardCharsets.UTF_8);
                headers.add(new RecordHeader(hk, readBytes(in, in.readInt())));
            }
            producer.send(new ProducerRecord<>(topic, 0, null, key, value, headers), (md, err) -> {
                if (err != null) {
                    failed.incrementAndGet();
                    firstError.compareAndSet("", oneLine(err));
                } else {
                    acked.incrementAndGet();
                }
            });
            sent++;
        }
        producer.flush();
        reply("ok bulk " + sent + " " + acked.get() + " " + failed.get() + " " + firstError.get());
    }

    public static void main(String[] args) throws Exception {
        String bulkTopic = null;
        if (args.length >= 2 && args[0].equals("--bulk")) {
            bulkTopic = args[1];
            args = Arrays.copyOfRange(args, 2, args.length);
        }
        Properties props = new Properties();
        for (String a : args) {
            int eq = a.indexOf('=');
            props.setProperty(a.substring(0, eq), a.substring(eq + 1));
        }
        props.setProperty("key.serializer", ByteArraySerializer.class.getName());
        props.setProperty("value.serializer", ByteArraySerializer.class.getName());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props);
        if (bulkTopic != null) {
            bulk(producer, bulkTopic);
            producer.close();
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            String cmd = f[0];
            try {
                switch (cmd) {
                    case "send": {
                        String id = f[1];
                        int part = Integer.parseInt(f[3]);
                        List<Header> headers = new ArrayList<>();
                        for (int i = 6; i < f.length; i++) {
                            int eq = f[i].indexOf('=');
                            headers.add(new RecordHeader(f[i].substring(0, eq), hex(f[i].substring(eq + 1))));
                        }
                        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(f[2], part < 0 ? null : part, null,
                                hex(f[4]), hex(f[5]), headers);
                        producer.send(r, (md, err) -> {
                            if (err != null) {
                                reply("nack " + id + " " + oneLine(err));
                            } else {
                                reply("ack " + id + " " + md.partition() + " " + md.offset());
                            }
                        });
                        continue;
                    }
                    case "init":
                        producer.initTransactions();
                        break;
                    case "begin":
                        producer.beginTransaction();
                        break;
                    case "commit":
                        producer.commitTransaction();
                        break;
                    case "abort":
                        producer.abortTransaction();
                        break;
                    case "flush":
                        producer.flush();
                        break;
                    case "close":
                        producer.close();
                        reply("ok close");
                        return;
                    default:
                        reply("fail " + cmd + " unknown command");
                        continue;
                }
                reply("ok " + cmd);
            } catch (Exception e) {
                reply("fail " + cmd + " " + oneLine(e));
            }
        }
        producer.close();
    }
}
