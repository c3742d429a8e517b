"""Allow `python -m builder`."""

from builder.cli import main

raise SystemExit(main())
