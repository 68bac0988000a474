import sys

from reducer.cli import main

sys.exit(main())
