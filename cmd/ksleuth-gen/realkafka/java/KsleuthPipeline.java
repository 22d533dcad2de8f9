// KsleuthPipeline is a consume-transform-produce application: a KafkaConsumer
// in a group with manual commits reads an input topic, and an idempotent
// (not transactional) KafkaProducer writes one output record per input
// record, to the same partition of the output topic. A Go test drives it
// step by step from stdin, so that it can kill or stop the process between
// producing a batch and committing its input offsets.
//
// Arguments: LOGFILE INPUT OUTPUT, then client properties: c.KEY=VALUE for
// the consumer, p.KEY=VALUE for the producer. Commands, one a line:
//
//	poll MILLIS     one consumer.poll; the records join those in hand
//	produce N       send the next N records in hand not yet produced (-1: all), then flush
//	commit          commitSync one past the last record in hand of each partition; the hand empties
//	close
//
// Every line the application logs goes both to LOGFILE and to stdout,
// flushed at once, so that a SIGKILL loses none of it. A line starts with
// the time in milliseconds since the epoch, which orders the lines of
// several instances, then one of:
//
//	assigned P,P  revoked P,P  lost P,P       from the rebalance listener
//	in P OFFSET                               a record polled
//	out P OFFSET OUTP OUTOFFSET KEYHEX|- VALUEHEX   an output's ack, by its input record
//	nack P OFFSET MESSAGE                     an output the producer failed
//	commit P OFFSET LEADEREPOCH               a partition's offset in the commit that follows
//	ok COMMAND [N]   fail COMMAND MESSAGE
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class KsleuthPipeline {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private static PrintStream logFile;

    private static synchronized void log(String line) {
        String stamped = System.currentTimeMillis() + " " + line;
        logFile.println(stamped);
        OUT.println(stamped);
    }

    private static String hex(byte[] b) {
        return b == null ? "-" : HexFormat.of().formatHex(b);
    }

    private static String oneLine(Exception e) {
        return (e.getClass().getSimpleName() + ": " + e.getMessage()).replace('\n', ' ');
    }

    private static String parts(Collection<TopicPartition> tps) {
        return tps.stream().map(TopicPartition::partition).sorted().map(String::valueOf).collect(Collectors.joining(","));
    }

    // The transform: the output is the input's key and its value behind a
    // prefix, so that every re-production of one input has the same content.
    private static byte[] transform(byte[] value) {
        byte[] prefix = "shipped:".getBytes(StandardCharsets.UTF_8);
        byte[] in = value == null ? new byte[0] : value;
        byte[] out = new byte[prefix.length + in.length];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(in, 0, out, prefix.length, in.length);
        return out;
    }

    public static void main(String[] args) throws Exception {
        logFile = new PrintStream(new FileOutputStream(args[0], true), true, StandardCharsets.UTF_8);
        String input = args[1];
        String output = args[2];
        Properties cprops = new Properties();
        Properties pprops = new Properties();
        for (int i = 3; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            (a.startsWith("c.") ? cprops : pprops).setProperty(a.substring(2, eq), a.substring(eq + 1));
        }
        cprops.setProperty("enable.auto.commit", "false");
        cprops.setProperty("key.deserializer", ByteArrayDeserializer.class.getName());
        cprops.setProperty("value.deserializer", ByteArrayDeserializer.class.getName());
        pprops.setProperty("key.serializer", ByteArraySerializer.class.getName());
        pprops.setProperty("value.serializer", ByteArraySerializer.class.getName());
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cprops);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pprops);
        consumer.subscribe(List.of(input), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> tps) {
                log("revoked " + parts(tps));
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> tps) {
                log("assigned " + parts(tps));
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> tps) {
                log("lost " + parts(tps));
            }
        });
        List<ConsumerRecord<byte[], byte[]>> hand = new ArrayList<>();
        int produced = 0;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            String cmd = f[0];
            try {
                switch (cmd) {
                    case "poll": {
                        int n = 0;
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(Long.parseLong(f[1])))) {
                            log("in " + r.partition() + " " + r.offset());
                            hand.add(r);
                            n++;
                        }
                        log("ok poll " + n);
                        break;
                    }
                    case "produce": {
                        int n = Integer.parseInt(f[1]);
                        int end = n < 0 ? hand.size() : Math.min(hand.size(), produced + n);
                        for (; produced < end; produced++) {
                            ConsumerRecord<byte[], byte[]> r = hand.get(produced);
                            String from = r.partition() + " " + r.offset();
                            byte[] value = transform(r.value());
                            producer.send(new ProducerRecord<>(output, r.partition(), r.key(), value), (md, err) -> {
                                if (err != null) {
                                    log("nack " + from + " " + oneLine(err));
                                } else {
                                    log("out " + from + " " + md.partition() + " " + md.offset() + " " + hex(r.key()) + " " + hex(value));
                                }
                            });
                        }
                        producer.flush();
                        log("ok produce " + produced);
                        break;
                    }
                    case "commit": {
                        Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
                        for (ConsumerRecord<byte[], byte[]> r : hand) {
                            offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1, r.leaderEpoch(), ""));
                        }
                        hand.clear();
                        produced = 0;
                        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
                            log("commit " + e.getKey().partition() + " " + e.getValue().offset() + " " + e.getValue().leaderEpoch().orElse(-1));
                        }
                        if (!offsets.isEmpty()) {
                            consumer.commitSync(offsets);
                        }
                        log("ok commit");
                        break;
                    }
                    case "close":
                        consumer.close();
                        producer.close();
                        log("ok close");
                        return;
                    default:
                        log("fail " + cmd + " unknown command");
                }
            } catch (Exception e) {
                log("fail " + cmd + " " + oneLine(e));
            }
        }
        consumer.close();
        producer.close();
    }
}
