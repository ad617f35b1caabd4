"""Harness for the process-level fault tests (scripts/check_faults.py, scripts/check_full_disk.py): the real
`wots-relay` and PostgreSQL as child processes, a paced sending load, a WebSocket recipient, health pollers and a
PASS/FAIL report. The client side is scripts/wotsclient."""
