"""The profiler's table, laid out as PyTorch prints it (``profiler_util._build_table``).

::

    ---------  ------------  ------------  ------------  ------------  ------------  ------------
         Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls
    ---------  ------------  ------------  ------------  ------------  ------------  ------------
    aten::mul        40.00%      40.000us        40.00%      40.000us      20.000us             2
    ...
    Self CPU time total: 100.000us

Percentages are of the *self* time of all rows (which adds up to the profiled time), so
"Self CPU %" sums to 100 % and "CPU total %" of a range that holds others can be large.
"""

from __future__ import annotations

__all__ = ["build_table", "format_time", "format_time_share", "format_memory"]

_US_IN_SECOND = 1000.0 * 1000.0
_US_IN_MS = 1000.0
_COLUMN_WIDTH = 12
_SPACING = 2


def format_time(time_us: float) -> str:
    """PyTorch's time format: ``'12.345us'``, ``'1.234ms'``, ``'2.000s'``."""
    if time_us >= _US_IN_SECOND:
        return f"{time_us / _US_IN_SECOND:.3f}s"
    if time_us >= _US_IN_MS:
        return f"{time_us / _US_IN_MS:.3f}ms"
    return f"{time_us:.3f}us"


def format_time_share(time_us: float, total_us: float) -> str:
    """``time_us`` as a percentage of ``total_us``, e.g. ``'12.50%'`` (``'NaN'`` of 0)."""
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


def format_memory(nbytes: int) -> str:
    """PyTorch's memory format: ``'4.00 KB'``, ``'-1.50 MB'``, ``'16 B'``."""
    kb = 1024
    mb = 1024 * kb
    gb = 1024 * mb
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return f"{nbytes} B"


def _in_unit(time_us: float, time_unit: str | None) -> str:
    """``time_us`` in a fixed unit (``time_unit='ms'`` ...), or PyTorch's automatic one."""
    if time_unit == "s":
        return f"{time_us / _US_IN_SECOND:.3f}s"
    if time_unit == "ms":
        return f"{time_us / _US_IN_MS:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return format_time(time_us)


def _sort_key(sort_by: str):
    # Device columns are zero on the CPU; PyTorch maps cuda_* / xpu_* to device_*.
    attribute = sort_by.replace("cuda", "device").replace("xpu", "device")

    def key(event):
        return getattr(event, attribute)

    return key


def build_table(events, sort_by: str | None = None, header: str | None = None,
                row_limit: int = 100, max_src_column_width: int = 75,
                max_name_column_width: int = 55, max_shapes_column_width: int = 80,
                profile_memory: bool = False, top_level_events_only: bool = False,
                time_unit: str | None = None) -> str:
    """Print ``events`` (events or averages) as a table; ``''`` if there are none."""
    if len(events) == 0:
        return ""
    if sort_by is not None:
        events = sorted(events, key=_sort_key(sort_by), reverse=True)

    has_input_shapes = any(event.input_shapes for event in events)
    has_stack = any(event.stack for event in events)
    name_width = max(len(event.key) for event in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [_COLUMN_WIDTH] * (len(headers) - 1)
    aligns = [">"] * len(headers)
    if has_input_shapes:
        headers.append("Input Shapes")
        shapes_width = max(len(str(event.input_shapes)) for event in events) + 4
        if max_shapes_column_width is not None:
            shapes_width = min(shapes_width, max_shapes_column_width)
        widths.append(shapes_width)
        aligns.append(">")
    if has_stack:
        headers.append("Source Location")
        src_width = max(len(line) for event in events for line in event.stack) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)
        widths.append(src_width)
        aligns.append("<")

    row_format = "".join(
        "{: " + align + str(width) + "}" + " " * _SPACING for align, width in zip(aligns, widths)
    )
    separator = "".join("-" * width + " " * _SPACING for width in widths)
    line_length = sum(widths) + _SPACING * (len(widths) - 1)

    total_self = sum(event.self_cpu_time_total for event in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]

    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_events_only and event.cpu_parent is not None:
            continue
        shown += 1
        name = event.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        row = [
            name,
            format_time_share(event.self_cpu_time_total, total_self),
            _in_unit(event.self_cpu_time_total, time_unit),
            format_time_share(event.cpu_time_total, total_self),
            _in_unit(event.cpu_time_total, time_unit),
            _in_unit(event.cpu_time, time_unit),
        ]
        if profile_memory:
            row += [format_memory(event.cpu_memory_usage),
                    format_memory(event.self_cpu_memory_usage)]
        row.append(event.count)
        if has_input_shapes:
            row.append(str(event.input_shapes)[:shapes_width])
        if has_stack:
            row.append(_trim_path(event.stack[0], src_width) if event.stack else "")
        lines.append(row_format.format(*row))
        if has_stack:  # the rest of the stack on lines of their own
            blanks = [""] * (len(headers) - 1)
            for entry in event.stack[1:]:
                lines.append(row_format.format(*blanks, _trim_path(entry, src_width)))
            lines.append(row_format.format(*blanks, ""))
    lines += [separator, f"Self CPU time total: {_in_unit(total_self, time_unit)}"]
    return "".join(line + "\n" for line in lines)


def _trim_path(path: str, width: int) -> str:
    """Keep the end of a long ``file:line`` (the start is replaced by ``...``)."""
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path
