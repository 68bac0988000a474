from tracker.cli import main
import sys

sys.exit(main(fork=True))
