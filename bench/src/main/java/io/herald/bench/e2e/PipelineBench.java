package io.herald.bench.e2e;

import io.herald.bench.suite.ProcessGroup;
import io.herald.demo.Pipeline;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the scenarios that run the pipeline's child JVMs (B5, B6, B7) read about them alike. */
final class PipelineBench {

  private PipelineBench() {}

  /** The pipeline's processes and the stack's, by name, for CPU and memory readings. */
  static ProcessGroup processes(Pipeline pipeline, StackContext stack) {
    ProcessGroup group = new ProcessGroup();
    for (ChildJvm process : pipeline.processes()) {
      group.add(process.name(), process.pid(), false);
    }
    return group.addStack(stack);
  }

  /** The one-minute load average, for the workload line: how shared the machine was. */
  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException e) {
      return "unknown";
    }
  }
}
