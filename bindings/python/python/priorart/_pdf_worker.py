"""``python -m priorart._pdf_worker``: reads one PDF on stdin and writes
``{"text": ...}`` or ``{"reason": ..., "message": ...}`` as JSON on stdout.

:func:`priorart.extract` runs PDFs here, in a child process it kills at its
time limit: a thread stuck in a parser cannot be stopped, a process can
(the CLI's ``__pdf-worker`` does the same).
"""

import json
import sys

from priorart import _priorart


def main() -> int:
    data = sys.stdin.buffer.read()
    try:
        answer = {"text": _priorart.extract(data, "pdf")}
    except _priorart.InputError as err:
        answer = {"reason": getattr(err, "reason", "invalid"), "message": str(err)}
    sys.stdout.buffer.write(json.dumps(answer, ensure_ascii=False).encode("utf-8"))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
