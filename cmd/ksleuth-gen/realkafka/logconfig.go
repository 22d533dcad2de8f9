package realkafka

import (
	"os"
)

// log4j2XML sends the broker's log4j output to the files a Kafka
// distribution writes (server.log, state-change.log, controller.log and
// log-cleaner.log under kafka.logs.dir), without rolling: a scenario's
// logs are small.
const log4j2XML = `<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders>
    <File name="server" fileName="${sys:kafka.logs.dir}/server.log"><PatternLayout pattern="[%d] %p %m (%c)%n"/></File>
    <File name="stateChange" fileName="${sys:kafka.logs.dir}/state-change.log"><PatternLayout pattern="[%d] %p %m (%c)%n"/></File>
    <File name="controller" fileName="${sys:kafka.logs.dir}/controller.log"><PatternLayout pattern="[%d] %p %m (%c)%n"/></File>
    <File name="cleaner" fileName="${sys:kafka.logs.dir}/log-cleaner.log"><PatternLayout pattern="[%d] %p %m (%c)%n"/></File>
  </Appenders>
  <Loggers>
    <Root level="INFO"><AppenderRef ref="server"/></Root>
    <Logger name="state.change.logger" level="INFO" additivity="false"><AppenderRef ref="stateChange"/></Logger>
    <Logger name="kafka.controller" level="INFO" additivity="false"><AppenderRef ref="controller"/></Logger>
    <Logger name="org.apache.kafka.controller" level="INFO" additivity="false"><AppenderRef ref="controller"/></Logger>
    <Logger name="kafka.log.LogCleaner" level="INFO" additivity="false"><AppenderRef ref="cleaner"/></Logger>
    <Logger name="org.apache.kafka.storage.internals.log.LogCleaner" level="INFO" additivity="false"><AppenderRef ref="cleaner"/></Logger>
  </Loggers>
</Configuration>
`

// log4j1Properties is the same for releases logging through reload4j.
const log4j1Properties = `log4j.rootLogger=INFO, server
log4j.appender.server=org.apache.log4j.FileAppender
log4j.appender.server.File=${kafka.logs.dir}/server.log
log4j.appender.server.layout=org.apache.log4j.PatternLayout
log4j.appender.server.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.appender.stateChange=org.apache.log4j.FileAppender
log4j.appender.stateChange.File=${kafka.logs.dir}/state-change.log
log4j.appender.stateChange.layout=org.apache.log4j.PatternLayout
log4j.appender.stateChange.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.appender.controller=org.apache.log4j.FileAppender
log4j.appender.controller.File=${kafka.logs.dir}/controller.log
log4j.appender.controller.layout=org.apache.log4j.PatternLayout
log4j.appender.controller.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.state.change.logger=INFO, stateChange
log4j.additivity.state.change.logger=false
log4j.logger.kafka.controller=INFO, controller
log4j.additivity.kafka.controller=false
log4j.logger.org.apache.kafka.controller=INFO, controller
log4j.additivity.org.apache.kafka.controller=false
`

// writeLogConfig writes base.xml or base.properties for the release.
func writeLogConfig(k *Kafka, base string) error {
	if k.Log4j1() {
		return os.WriteFile(base+".properties", []byte(log4j1Properties), 0o644)
	}
	return os.WriteFile(base+".xml", []byte(log4j2XML), 0o644)
}
