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
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
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

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        for (String a : args) {
            int eq = a.indexOf('=');
            props.setProperty(a.substring(0, eq), a.substring(eq + 1));
        }
        props.setProperty("key.serializer", ByteArraySerializer.class.getName());
        props.setProperty("value.serializer", ByteArraySerializer.class.getName());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props);
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
