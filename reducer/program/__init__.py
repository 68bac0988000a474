"""One program's files: reading it (and merging the local modules it imports), writing results atomically,
the provenance header a result carries, and finding a Ctrl-C that a library turned into another error."""
