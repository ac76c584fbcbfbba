// Produces test messages into the test broker for floe's Kafka tests, with the broker's
// own client (kafka-clients, in the folder scripts/services/kafka.sh fills). Run with
// Java's source launcher:
//
//   java -cp "LIB/*" KafkaProduce.java BOOTSTRAP TOPIC PARTITIONS
//
// Creates TOPIC with PARTITIONS partitions if it does not exist, then reads standard
// input, one command a line:
//   PARTITION<TAB>KEY<TAB>VALUE   a message (KEY "-" : no key; VALUE "-" : a null value,
//                                 a tombstone); KEY and VALUE must hold no tab or newline
//   FLUSH                         waits until every message so far is acknowledged, then
//                                 prints "ok COUNT" on standard output
//   COMMITTED GROUP               prints the offsets GROUP has committed for TOPIC:
//                                 "committed P:OFFSET,..." in partition order (-1: none)
//   DELETE PARTITION OFFSET       deletes the messages of TOPIC[PARTITION] before OFFSET
//                                 (the Admin API's deleteRecords, as kafka-delete-records
//                                 does), then prints "deleted LOW" (the new log start)
// The producer is idempotent (acks=all), so a message is written once and in order.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DeletedRecords;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;

public class KafkaProduce {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int partitions = Integer.parseInt(args[2]);
    Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
    try {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException))
        throw e;
    }
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("enable.idempotence", "true");
    props.put("acks", "all");
    props.put("linger.ms", "5");
    long sent = 0;
    try (KafkaProducer<String, String> producer =
             new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
         BufferedReader in =
             new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      System.out.println("ready");
      System.out.flush();
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith("COMMITTED ")) {
          String group = line.substring("COMMITTED ".length());
          Map<TopicPartition, OffsetAndMetadata> committed =
              admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
          StringBuilder out = new StringBuilder("committed ");
          for (int p = 0; p < partitions; ++p) {
            OffsetAndMetadata o = committed.get(new TopicPartition(topic, p));
            out.append(p == 0 ? "" : ",").append(p).append(':').append(o == null ? -1 : o.offset());
          }
          System.out.println(out);
          System.out.flush();
          continue;
        }
        if (line.startsWith("DELETE ")) {
          String[] words = line.split(" ");
          TopicPartition tp = new TopicPartition(topic, Integer.parseInt(words[1]));
          DeletedRecords deleted =
              admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(Long.parseLong(words[2]))))
                  .lowWatermarks()
                  .get(tp)
                  .get();
          System.out.println("deleted " + deleted.lowWatermark());
          System.out.flush();
          continue;
        }
        if (line.equals("FLUSH")) {
          producer.flush();
          System.out.println("ok " + sent);
          System.out.flush();
          continue;
        }
        String[] parts = line.split("\t", 3);
        int partition = Integer.parseInt(parts[0]);
        String key = parts[1].equals("-") ? null : parts[1];
        String value = parts[2].equals("-") ? null : parts[2];
        // A failed send fails the next flush (and so the test).
        producer.send(new ProducerRecord<>(topic, partition, key, value), (metadata, error) -> {
          if (error != null) {
            System.err.println("send failed: " + error);
            System.exit(1);
          }
        });
        ++sent;
      }
      producer.flush();
    }
    admin.close();
  }
}
