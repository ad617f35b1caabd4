"""PASS/FAIL lines with figures, and the closing count."""


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.failures = []

    def check(self, ok, what, figures="", scope=""):
        word = "PASS" if ok else "FAIL"
        line = f"  {word}  {what}" + (f" — {figures}" if figures else "")
        print(line, flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(f"{scope}: {what} — {figures}" if scope else f"{what} — {figures}")
        return ok

    def info(self, what, figures=""):
        print(f"  INFO  {what}" + (f" — {figures}" if figures else ""), flush=True)

    def close(self):
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 else 1


def table(headers, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]
    line = lambda cells: "  ".join(str(cell).rjust(width) if index else str(cell).ljust(width)
                                   for index, (cell, width) in enumerate(zip(cells, widths)))
    print(line(headers))
    print("  ".join("-" * width for width in widths))
    for row in rows:
        print(line(row))
