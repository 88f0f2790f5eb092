{
  "targets": [
    {
      "target_name": "syncbench_io",
      "sources": ["native/io.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
