// MetadataJSON prints, for each line "HEX<TAB>EXPECTED" of the file named
// by its argument, the payload Kafka's own reader and JSON converters give
// the metadata record value HEX, in the form kafka-dump-log's
// --cluster-metadata-decoder prints, and exits 1 when any differs from
// EXPECTED. Used by the analysis/topics tests.
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HexFormat;
import org.apache.kafka.common.metadata.MetadataJsonConverters;
import org.apache.kafka.common.metadata.MetadataRecordType;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.metadata.MetadataRecordSerde;

public class MetadataJSON {
    public static void main(String[] args) throws Exception {
        MetadataRecordSerde serde = new MetadataRecordSerde();
        int differ = 0, n = 0;
        for (String line : Files.readAllLines(Paths.get(args[0]))) {
            String[] parts = line.split("\t", 2);
            byte[] value = HexFormat.of().parseHex(parts[0]);
            String got;
            try {
                var rec = serde.read(new ByteBufferAccessor(ByteBuffer.wrap(value)), value.length);
                ObjectNode node = new ObjectNode(JsonNodeFactory.instance);
                node.set("type", new TextNode(MetadataRecordType.fromId(rec.message().apiKey()).toString()));
                node.set("version", new IntNode(rec.version()));
                node.set("data", MetadataJsonConverters.writeJson(rec.message(), rec.version()));
                got = node.toString();
            } catch (Exception e) {
                got = "error: " + e;
            }
            n++;
            if (!got.equals(parts[1])) {
                differ++;
                System.out.println("kafka   " + got + "\nksleuth " + parts[1]);
            }
        }
        System.out.println(n + " records, " + differ + " differ");
        System.exit(differ == 0 ? 0 : 1);
    }
}
