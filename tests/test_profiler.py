"""torch.profiler / torch.autograd.profiler: what is recorded, how it nests, the table.

No timing assertions: the tests check names, counts, nesting (self <= total, children
inside their parents), shapes, the schedule's actions, the Chrome trace and the table's
layout; and that the profiler leaves Op.apply exactly as it found it. Torch-marked tests
run the same program under PyTorch and compare the recorded names and the table header.
"""

import json
import warnings

import pytest

import teachgrad as torch
from teachgrad.autograd import engine
from teachgrad.ops.op import Op
from teachgrad.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)
from teachgrad.profiler.naming import aten_name, snake_name

PLAIN_APPLY = Op.__dict__["apply"]
EVALUATE = "autograd::engine::evaluate_function: "


def program(lib):
    """A small forward + backward pass, written once for both libraries."""
    lib.manual_seed(0)
    x = lib.randn(4, 3, requires_grad=True)
    w = lib.randn(3, 2, requires_grad=True)
    with lib.profiler.record_function("forward_pass"):
        y = (x * 2).relu()
        z = lib.mm(y, w)
        loss = z.sum()
    loss.backward()


def profiled(lib=torch, **kwargs):
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **kwargs) as prof:
        program(lib)
    return prof


def names(prof) -> list:
    return [event.name for event in prof.events()]


# ----------------------------------------------------------------------------------------
# What is recorded, and how it nests
# ----------------------------------------------------------------------------------------
def test_forward_ops_are_named_as_aten_operators():
    recorded = names(profiled())
    assert [n for n in recorded if n.startswith("aten::")] == [
        "aten::randn", "aten::randn", "aten::mul", "aten::relu", "aten::mm", "aten::sum"]


def test_backward_nodes_appear_inside_their_evaluate_function():
    events = profiled().events()
    for node_name in ["SumBackward0", "MmBackward0", "ReluBackward0", "MulBackward0",
                      "torch::autograd::AccumulateGrad"]:
        outers = [e for e in events if e.name == EVALUATE + node_name]
        assert len(outers) == (2 if "Accumulate" in node_name else 1)  # x and w
        for outer in outers:
            assert [child.name for child in outer.cpu_children] == [node_name]
            assert outer.cpu_parent is None  # backward ran outside record_function
    accumulate = [e for e in events if e.name == "torch::autograd::AccumulateGrad"]
    assert len(accumulate) == 2  # x and w


def test_record_function_range_contains_the_forward_ops():
    events = profiled().events()
    [block] = [e for e in events if e.name == "forward_pass"]
    assert block.is_user_annotation
    assert [c.name for c in block.cpu_children] == [
        "aten::mul", "aten::relu", "aten::mm", "aten::sum"]
    for child in block.cpu_children:
        assert block.time_range.start <= child.time_range.start
        assert child.time_range.end <= block.time_range.end


def test_self_time_excludes_children_and_adds_up():
    events = profiled().events()
    for event in events:
        assert 0 <= event.self_cpu_time_total <= event.cpu_time_total
        children = sum(child.cpu_time_total for child in event.cpu_children)
        assert event.self_cpu_time_total == pytest.approx(event.cpu_time_total - children)
        for child in event.cpu_children:
            assert child.cpu_parent is event
    # Every moment is counted once: the self times add up to the top-level totals.
    top = sum(e.cpu_time_total for e in events if e.cpu_parent is None)
    assert events.self_cpu_time_total == pytest.approx(top)


def test_ops_without_grad_are_recorded_too():
    with profile() as prof, torch.no_grad():
        torch.ones(2, 2).exp().sum()
    assert names(prof) == ["aten::ones", "aten::exp", "aten::sum"]


def test_record_shapes():
    events = profiled(record_shapes=True).events()
    shapes = {e.name: e.input_shapes for e in events if e.name.startswith("aten::")}
    assert shapes["aten::mul"] == [[4, 3], []]  # a Python number is []
    assert shapes["aten::mm"] == [[4, 3], [3, 2]]
    assert shapes["aten::sum"] == [[4, 2]]
    without = profiled().events()
    assert all(e.input_shapes == [] for e in without)


def test_key_averages_counts_calls_and_groups_by_shape():
    a, b = torch.ones(2, 3), torch.ones(5)
    with profile(record_shapes=True) as prof:
        a * a, a * a, b * b
    averages = {row.key: row for row in prof.key_averages()}
    assert averages["aten::mul"].count == 3
    assert averages["aten::mul"].input_shapes == ""  # hidden unless grouped by shape
    grouped = prof.key_averages(group_by_input_shape=True)
    assert sorted((row.key, str(row.input_shapes), row.count) for row in grouped) == [
        ("aten::mul", "[[2, 3], [2, 3]]", 2), ("aten::mul", "[[5], [5]]", 1)]
    total = sum(row.cpu_time_total for row in grouped)
    assert total == pytest.approx(sum(e.cpu_time_total for e in prof.events()))


def test_create_graph_records_the_backward_formula_ops_inside_the_node():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with profile() as prof:
        torch.autograd.grad((x * x).sum(), x, create_graph=True)
    [node] = [e for e in prof.events() if e.name == "MulBackward0"]
    assert {c.name for c in node.cpu_children} == {"aten::mul"}


def test_record_function_as_decorator_and_outside_a_profiler():
    @record_function("double")
    def double(t):
        return t * 2

    assert double(torch.ones(1)).tolist() == [2.0]  # no profiler: just runs
    with profile() as prof:
        double(torch.ones(1))
        double(torch.ones(1))
    rows = {row.key: row.count for row in prof.key_averages()}
    assert rows["double"] == 2 and rows["aten::mul"] == 2
    assert all(e.cpu_parent.name == "double" for e in prof.events() if e.name == "aten::mul")


def test_profile_memory_counts_the_bytes_results_allocate():
    with profile(profile_memory=True) as prof, record_function("block"):
        torch.ones(10, 10, dtype=torch.float64).exp()  # 800 bytes
        torch.ones(4).view(2, 2)  # a view allocates nothing
    [event] = [e for e in prof.events() if e.name == "aten::exp"]
    assert event.cpu_memory_usage == event.self_cpu_memory_usage == 800
    [block] = [e for e in prof.events() if e.name == "block"]
    assert block.self_cpu_memory_usage == 0
    assert [c.name for c in block.cpu_children] == [
        "aten::ones", "aten::exp", "aten::ones", "aten::view"]
    assert block.cpu_memory_usage == 800 + 800 + 16  # ones, exp, ones; a view: nothing
    table = prof.key_averages().table(sort_by="self_cpu_memory_usage")
    header = split_columns(table.splitlines()[1])
    assert header == HEADER[:-1] + ["CPU Mem", "Self CPU Mem", "# of Calls"]
    assert "800 B" in table


def test_with_stack_names_the_users_line():
    with profile(with_stack=True) as prof:
        torch.ones(2) * 3
    [event] = [e for e in prof.events() if e.name == "aten::mul"]
    assert __file__ in event.stack[0]
    assert "Source Location" in prof.key_averages(group_by_stack_n=1).table()


# ----------------------------------------------------------------------------------------
# No cost when off: Op.apply is put back
# ----------------------------------------------------------------------------------------
def test_op_apply_is_the_original_when_no_profiler_runs():
    assert Op.__dict__["apply"] is PLAIN_APPLY
    with profile():
        assert Op.__dict__["apply"] is not PLAIN_APPLY
    assert Op.__dict__["apply"] is PLAIN_APPLY
    assert engine._accumulate.__module__ == "teachgrad.autograd.engine"
    assert Op.__dict__["_run_backward"].__qualname__ == "Op._run_backward"


def test_op_apply_is_restored_after_an_exception():
    with pytest.raises(ZeroDivisionError), profile():
        torch.ones(2) * 2
        raise ZeroDivisionError
    assert Op.__dict__["apply"] is PLAIN_APPLY
    assert Op.__dict__["_run_backward"].__qualname__ == "Op._run_backward"


def test_start_stop_without_with():
    prof = profile()
    prof.start()
    torch.ones(2).neg()
    prof.stop()
    assert names(prof) == ["aten::ones", "aten::neg"]
    assert Op.__dict__["apply"] is PLAIN_APPLY


def test_one_profiler_at_a_time():
    with profile(), pytest.raises(RuntimeError, match="already enabled"), profile():
        pass
    assert Op.__dict__["apply"] is PLAIN_APPLY


def test_forward_ad_inside_a_profile_leaves_op_apply_plain():
    import teachgrad.autograd.forward_ad as fwAD

    with profile(), fwAD.dual_level():
        fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0)) * 3
    assert Op.__dict__["apply"] is PLAIN_APPLY


def test_results_before_profiling_raise():
    with pytest.raises(AssertionError, match="must be initialized"):
        profile().key_averages()


# ----------------------------------------------------------------------------------------
# Schedule
# ----------------------------------------------------------------------------------------
def test_schedule_actions():
    A = ProfilerAction
    s = schedule(skip_first=1, wait=1, warmup=1, active=2, repeat=2)
    assert [s(step) for step in range(10)] == [
        A.NONE,                                              # skip_first
        A.NONE, A.WARMUP, A.RECORD, A.RECORD_AND_SAVE,       # cycle 1
        A.NONE, A.WARMUP, A.RECORD, A.RECORD_AND_SAVE,       # cycle 2
        A.NONE]                                              # repeat=2: done
    with pytest.raises(AssertionError, match="Invalid profiler schedule"):
        schedule(wait=0, warmup=0, active=0)
    with pytest.warns(UserWarning, match="won't be using warmup"):
        schedule(wait=1, warmup=0, active=1)


def test_schedule_records_the_active_steps_and_hands_each_cycle_on():
    cycles = []

    def on_trace_ready(prof):
        steps = [e for e in prof.events() if e.name == "ProfilerStep*"]  # as tables group them
        cycles.append(sorted(e.trace_name for e in steps))

    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                 on_trace_ready=on_trace_ready) as prof:
        for _ in range(10):
            torch.ones(2).exp()
            prof.step()
    assert cycles == [["ProfilerStep#2", "ProfilerStep#3"],
                      ["ProfilerStep#6", "ProfilerStep#7"]]
    [step] = [e for e in prof.events() if e.trace_name == "ProfilerStep#7"]
    assert [c.name for c in step.cpu_children] == ["aten::ones", "aten::exp"]


# ----------------------------------------------------------------------------------------
# Exports and the table
# ----------------------------------------------------------------------------------------
def test_chrome_trace_is_json_with_every_event(tmp_path):
    prof = profiled(record_shapes=True)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    ranges = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in ranges] == names(prof)
    for entry, event in zip(ranges, prof.events()):
        assert entry["dur"] == pytest.approx(event.cpu_time_total)
        assert entry["ts"] == pytest.approx(event.time_range.start)
    [mm] = [e for e in ranges if e["name"] == "aten::mm"]
    assert mm["args"]["Input Dims"] == [[4, 3], [3, 2]]


def test_tensorboard_trace_handler_writes_a_trace_file(tmp_path):
    folder = tmp_path / "log"
    with profile(on_trace_ready=tensorboard_trace_handler(str(folder), worker_name="w")):
        torch.ones(2).exp()
    [file] = list(folder.iterdir())
    assert file.name.startswith("w.") and file.name.endswith(".pt.trace.json")
    trace = json.loads(file.read_text())
    assert "aten::exp" in [e["name"] for e in trace["traceEvents"]]


HEADER = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
          "# of Calls"]


def split_columns(line: str) -> list:
    return [cell.strip() for cell in line.split("  ") if cell.strip()]


def test_table_layout():
    prof = profiled()
    lines = prof.key_averages().table(
        sort_by="cpu_time_total", row_limit=3, max_name_column_width=80).splitlines()
    assert lines[0] == lines[2] == lines[-2]  # the dashed separators
    assert set(lines[0]) == {"-", " "}
    assert split_columns(lines[1]) == HEADER
    assert len(lines) == 3 + 3 + 2  # header, three rows, separator and footer
    assert lines[-1].startswith("Self CPU time total: ")
    rows = [split_columns(line) for line in lines[3:6]]
    totals = {row.key: row.cpu_time_total for row in prof.key_averages()}
    # sorted by total time, largest first
    listed = [totals[row[0]] for row in rows]
    assert listed == sorted(listed, reverse=True) == sorted(totals.values(), reverse=True)[:3]
    for row in rows:
        counts = {row.key: row.count for row in prof.key_averages()}
        assert row[1].endswith("%") and row[3].endswith("%")
        times = (row[2], row[4], row[5])
        assert all(cell[-2:] in ("us", "ms") or cell.endswith("s") for cell in times)
        assert int(row[6]) == counts[row[0]]


def test_table_input_shapes_column_and_sort_by_count():
    prof = profiled(record_shapes=True)
    table = prof.key_averages(group_by_input_shape=True).table(sort_by="count")
    header = split_columns(table.splitlines()[1])
    assert header == HEADER + ["Input Shapes"]
    assert "[[4, 3], [3, 2]]" in table
    assert "Input Shapes" not in prof.key_averages().table()


def test_table_truncates_long_names_and_formats_times():
    from teachgrad.profiler.table import format_time, format_time_share

    assert format_time(12.3456) == "12.346us"
    assert format_time(1234.0) == "1.234ms"
    assert format_time(2_500_000) == "2.500s"
    assert format_time_share(1, 4) == "25.00%"
    table = profiled().key_averages().table()
    assert "autograd::engine::evaluate_function: torch::autograd..." in table


def test_legacy_autograd_profiler():
    with torch.autograd.profiler.profile(record_shapes=True) as prof:
        program(torch)
    assert "aten::mm" in [e.name for e in prof.function_events]
    assert split_columns(str(prof).splitlines()[1]) == HEADER + ["Input Shapes"]
    assert prof.self_cpu_time_total == pytest.approx(prof.function_events.self_cpu_time_total)
    with pytest.warns(UserWarning) as caught:
        torch.autograd.profiler.profile(use_cuda=True)
    assert [str(w.message) for w in caught] == [
        "The attribute `use_cuda` will be deprecated soon, please use ``use_device = 'cuda'`` "
        "instead.", "CUDA is not available, disabling CUDA profiling"]
    with torch.autograd.profiler.profile(enabled=False) as off:
        torch.ones(1) * 2
    assert Op.__dict__["apply"] is PLAIN_APPLY
    with pytest.raises(RuntimeError, match="didn't finish"):
        off.key_averages()
    with torch.autograd.profiler.emit_nvtx(), torch.autograd.profiler.emit_itt():
        pass


def test_cuda_activity_warns_and_profiles_the_cpu():
    with pytest.warns(UserWarning, match="CUDA is not available, disabling CUDA profiling"):
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    with prof:
        torch.ones(1) * 2
    assert "aten::mul" in names(prof)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(AssertionError, match="No activities"):
            profile(activities=[ProfilerActivity.CUDA])


def test_aten_names_of_op_classes():
    from teachgrad.ops import pointwise, shape

    assert snake_name("NativeLayerNormBackward0") == "native_layer_norm"
    assert snake_name("MaxPool2DWithIndicesBackward0") == "max_pool2d_with_indices"
    assert snake_name("Log1PBackward0") == "log1p"
    assert aten_name(pointwise.MulBackward0) == "aten::mul"
    assert aten_name(shape.UnsafeViewBackward0) == "aten::_unsafe_view"


# ----------------------------------------------------------------------------------------
# Parity with PyTorch
# ----------------------------------------------------------------------------------------
def all_op_classes():
    import teachgrad.nn.functional  # noqa: F401 - loads every op module

    found, todo = [], [Op]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


@pytest.mark.torch
def test_derived_names_are_aten_operators():
    real = pytest.importorskip("torch")
    operators = {name.split(".")[0] for name in real._C._dispatch_get_all_op_names()}
    checked = [cls for cls in all_op_classes()
               if not cls.__qualname__.startswith("_") and cls.__name__.endswith(
                   ("Backward0", "Backward1", "Backward2", "Backward3"))]
    assert len(checked) > 300
    missing = sorted({aten_name(cls) for cls in checked} - operators)
    assert missing == ["aten::igamma_grad_input"]  # teachgrad's own helper op


@pytest.mark.torch
def test_same_names_as_torch():
    real = pytest.importorskip("torch")
    mine, theirs = profiled(torch).events(), profiled(real).events()

    def forward_ops(events):  # the ops the program called itself, in order
        return [e.name for e in events if e.name.startswith("aten::")
                and (e.cpu_parent is None or e.cpu_parent.name == "forward_pass")
                and e.name != "aten::ones_like"]  # (PyTorch's seed of backward)

    def backward_nodes(events):
        return sorted(e.name for e in events if "Backward" in e.name or "autograd" in e.name)

    assert forward_ops(mine) == forward_ops(theirs)
    assert backward_nodes(mine) == backward_nodes(theirs)
    assert {e.name for e in mine} <= {e.name for e in theirs}


@pytest.mark.torch
def test_mlp_names_are_a_subset_of_torchs():
    real = pytest.importorskip("torch")

    def mlp(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 4))
        x = lib.randn(5, 8)
        with lib.profiler.profile() as prof:
            lib.nn.functional.cross_entropy(model(x), lib.tensor([0, 1, 2, 3, 0])).backward()
        return {e.name for e in prof.events()}

    mine, theirs = mlp(torch), mlp(real)
    assert mine <= theirs, mine - theirs
    backward = {n for n in theirs if n.startswith(EVALUATE)}
    assert {n for n in mine if n.startswith(EVALUATE)} == backward


@pytest.mark.torch
def test_table_header_matches_torch():
    real = pytest.importorskip("torch")
    for group in (False, True):
        mine = profiled(torch, record_shapes=True).key_averages(group_by_input_shape=group)
        theirs = profiled(real, record_shapes=True).key_averages(group_by_input_shape=group)
        mine_lines, their_lines = mine.table().splitlines(), theirs.table().splitlines()
        assert split_columns(mine_lines[1]) == split_columns(their_lines[1])
        # the same column widths, except the name column (it fits the longest name)
        assert mine_lines[0].split("  ")[1:] == their_lines[0].split("  ")[1:] or group
        assert mine_lines[-1].split(":")[0] == their_lines[-1].split(":")[0]


def test_optimizer_steps_are_ranges_as_in_torch():
    model = torch.nn.Linear(3, 2)
    sgd = torch.optim.SGD(model.parameters(), lr=0.1)
    adam = torch.optim.Adam(model.parameters())
    with profile() as prof:
        model(torch.ones(1, 3)).sum().backward()
        sgd.step()
        adam.step()
        sgd.zero_grad()
    top = [e.name for e in prof.events() if e.cpu_parent is None and "Optimizer" in e.name]
    assert top == ["Optimizer.step#SGD.step", "Optimizer.step#Adam.step",
                   "Optimizer.zero_grad#SGD.zero_grad"]
    assert torch.optim.SGD.__dict__["step"].__qualname__ == "SGD.step"  # put back


@pytest.mark.torch
def test_optimizer_range_names_match_torch():
    real = pytest.importorskip("torch")

    def run(lib):
        model = lib.nn.Linear(3, 2)
        sgd = lib.optim.SGD(model.parameters(), lr=0.1)
        with lib.profiler.profile() as prof:
            model(lib.ones(1, 3)).sum().backward()
            sgd.step()
            sgd.zero_grad()
        return [e.name for e in prof.events() if e.name.startswith("Optimizer")]

    assert run(torch) == run(real)


def square_function(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return Square


def custom_function_events(lib):
    x = lib.ones(3, requires_grad=True)
    square = square_function(lib)
    with lib.profiler.profile() as prof:
        square.apply(x).sum().backward()
    return prof.events()


def test_custom_function_forward_and_backward_ranges():
    events = custom_function_events(torch)
    [forward] = [e for e in events if e.name == "Square"]
    assert [c.name for c in forward.cpu_children] == ["aten::mul"]
    [backward] = [e for e in events if e.name == "SquareBackward"]
    assert backward.cpu_parent.name == EVALUATE + "SquareBackward"
    assert [c.name for c in backward.cpu_children] == ["aten::mul", "aten::mul"]
    assert torch.autograd.Function.__dict__["apply"].__func__.__qualname__ == "Function.apply"


@pytest.mark.torch
def test_custom_function_ranges_match_torch():
    real = pytest.importorskip("torch")

    def outline(lib):  # the ranges that are not aten:: ops, with their parents
        return [(e.name, e.cpu_parent.name if e.cpu_parent else None)
                for e in custom_function_events(lib) if not e.name.startswith("aten::")
                and e.name != "detach"]

    assert outline(torch) == outline(real)


def factories_and_inplace(lib):
    with lib.profiler.profile() as prof:
        a = lib.ones(2, 3)
        lib.zeros(2)
        lib.randn(4)
        lib.arange(5)
        lib.full((2,), 3.0)
        lib.zeros_like(a)
        a.add_(1)
        a.mul_(2)
        a.zero_()
        b = lib.ones(3, requires_grad=True) * 1
        b.relu_()
    return prof


def test_factories_and_inplace_methods_are_recorded_once():
    prof = factories_and_inplace(torch)
    assert names(prof) == [
        "aten::ones", "aten::zeros", "aten::randn", "aten::arange", "aten::full",
        "aten::zeros_like", "aten::add_", "aten::mul_", "aten::zero_", "aten::ones",
        "aten::mul", "aten::relu_"]  # add_ runs add inside: folded into one row
    # put back: the originals, not the profiler's wrappers
    assert torch.Tensor.__dict__["mul_"].__module__ == "teachgrad.ops.inplace"
    assert torch.ones.__module__ == "teachgrad._creation"


@pytest.mark.torch
def test_factories_and_inplace_top_level_names_match_torch():
    real = pytest.importorskip("torch")

    def top(lib):
        return [e.name for e in factories_and_inplace(lib).events() if e.cpu_parent is None]

    assert top(torch) == top(real)
