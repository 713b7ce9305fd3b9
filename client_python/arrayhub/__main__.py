"""``python -m arrayhub``: the ``arrayhub`` command (see arrayhub._cli)."""

from arrayhub._cli import main

raise SystemExit(main())
