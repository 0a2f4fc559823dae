"""The third pass's templates for test/fixtures/grader/math-verify-agreement.jsonl (written by agreement_pairs.py):
the families the grader still missed on answers it had never seen. Every template is ours, drawn with seeded numbers,
each drawn right and wrong where a wrong one exists:

- equation-rhs: answers written as an equation or with a label, on either side (`(a, b) = (4, 1)`, `P:Q = 5:12`);
- intervals: inequalities against intervals, both directions, chains, absolute values and unions;
- computed: values computed before comparing (matrix sums and products, arithmetic) and decimals of some precision;
- decimal-comma: decimal commas where the text leaves no doubt, and thousands where it does;
- prose: answers in sentences with and without `$`, thousands inside math, chat turn markers, `\\left( … \\right)`;
- any-order: several answers in another order (sets of tuples, "or", "and", roots);
- false-accepts: answers split across lines inside one math span, and near misses.
"""


def frac(a, b):
    return f"\\frac{{{a}}}{{{b}}}"


def mat(rows, env="pmatrix"):
    return f"\\begin{{{env}}} " + " \\\\ ".join(" & ".join(str(c) for c in r) for r in rows) + f" \\end{{{env}}}"


def pick(rng, xs):
    return xs[rng.randrange(len(xs))]


def T(fn):
    fn.template = fn.__name__
    return fn


WORK = [
    "First we draw the figure and mark the given lengths. ",
    "Let us set up the equations from the conditions in the problem. ",
    "We simplify the expression step by step and check each case. ",
]


# ---------------------------------------------------------------- answers as equations or with labels
@T
def eqr_tuple_label(rng):
    a, b = rng.randint(1, 12), rng.randint(1, 12)
    names = pick(rng, ["(a, b)", "(x, y)", "(m, n)", "(p,q)", "(r, s)"])
    return [
        (f"{names} = ({a}, {b})", f"$({a}, {b})$"),
        (f"{names} = ({a}, {b})", f"So the pair is $\\boxed{{({a},{b})}}$."),
        (f"({a}, {b})", f"We find ${names} = ({a}, {b})$."),
        (f"{names} = ({a}, {b})", f"$({a}, {b + 1})$"),
        (f"({a}, {b})", f"We find ${names} = ({b + 1}, {a})$."),
    ]


@T
def eqr_two_labels(rng):
    a, b = rng.randint(2, 15), rng.randint(16, 30)
    l1, l2 = pick(rng, [("XY", "ZW"), ("AB", "CD"), ("PQ", "RS"), ("BC", "AC")])
    return [
        (f"{l1} = {a}, {l2} = {b}", f"${a}, {b}$"),
        (f"{l1} = {a}, {l2} = {b}", f"\\boxed{{{a}, {b}}}"),
        (f"{a}, {b}", f"$\\boxed{{{l1} = {a}, {l2} = {b}}}$"),
        (f"{l1} = {a}, {l2} = {b}", f"${b}, {a}$"),
        (f"{l1} = {a}, {l2} = {b}", f"${a}, {b + 2}$"),
    ]


@T
def eqr_ratio_label(rng):
    a, b = rng.randint(1, 9), rng.randint(10, 19)
    names = pick(rng, ["P:Q", "AM:MB", "x:y", "BD:DC", "r_1:r_2"])
    return [
        (f"{names} = {a}:{b}", f"${a}:{b}$"),
        (f"{names} = {a}:{b}", f"$\\boxed{{{frac(a, b)}}}$"),
        (f"{a}:{b}", f"The ratio is ${names} = {a}:{b}$."),
        (f"{names} = {a}:{b}", f"${b}:{a}$"),
    ]


@T
def eqr_fraction_label(rng):
    a, r = rng.randint(1, 9), pick(rng, [2, 3, 5, 6, 7])
    names = pick(rng, [("AM", "MB"), ("BE", "EC"), ("PX", "XQ")])
    gold = f"\\frac{{{names[0]}}}{{{names[1]}}} = \\frac{{{a}}}{{\\sqrt{{{r}}}}}"
    return [
        (gold, f"$\\frac{{{a}}}{{\\sqrt{{{r}}}}}$"),
        (gold, f"$\\boxed{{\\frac{{{a}\\sqrt{{{r}}}}}{{{r}}}}}$"),
        (gold, f"$\\frac{{{a + 1}}}{{\\sqrt{{{r}}}}}$"),
        (f"\\frac{{{a}}}{{\\sqrt{{{r}}}}}", f"Hence ${gold}$."),
    ]


@T
def eqr_abs_label(rng):
    n = rng.randint(2, 40)
    name = pick(rng, ["|PQ|", "|AB|", "|\\vec{v}|", "\\|u\\|", "|z|"])
    return [
        (f"{name} = {n}", f"${n}$"),
        (f"{name} = {n}", f"\\boxed{{{n}}}"),
        (str(n), f"so ${name} = {n}$"),
        (f"{name} = {n}", f"${n + 1}$"),
        (f"{name} = \\sqrt{{{n}}}", f"$\\sqrt{{{n}}}$"),
    ]


@T
def eqr_angle_label(rng):
    n = rng.randint(20, 160)
    name = pick(rng, ["\\angle ABC", "m\\angle B", "\\angle PQR", "\\theta"])
    return [
        (f"{name} = {n}^\\circ", f"$\\boxed{{{n}^\\circ}}$"),
        (f"{name} = {n}^\\circ", f"$\\boxed{{{n}}}$"),
        (f"{n}^\\circ", f"Therefore ${name} = {n}^\\circ$."),
        (f"{name} = {n}^\\circ", f"$\\boxed{{{n + 10}^\\circ}}$"),
    ]


@T
def eqr_value_label(rng):
    n = rng.randint(2, 99)
    name = pick(rng, ["f(2)", "S_{10}", "a_7", "P(3)", "g(-1)", "N"])
    return [
        (f"{name} = {n}", f"$\\boxed{{{n}}}$"),
        (str(n), f"$\\boxed{{{name} = {n}}}$"),
        (f"{name} = {n}", f"${name} = {n}$"),
        (f"{name} = {n}", f"$\\boxed{{{n - 1}}}$"),
    ]


@T
def eqr_expression_label(rng):
    a, b = rng.randint(1, 9), rng.randint(1, 9)
    lhs = pick(rng, ["a + b", "x + y", "AB + BC", "2a", "mn"])
    return [
        (f"{lhs} = {a + b}", f"${a + b}$"),
        (str(a + b), f"$\\boxed{{{lhs} = {a + b}}}$"),
        (f"{lhs} = {a + b}", f"${lhs} = {a + b}$"),
        (str(a + b), f"${lhs} = {a + b + 1}$"),
    ]


# ---------------------------------------------------------------- intervals and inequalities
@T
def int_chain_member(rng):
    a = rng.randint(-9, 0)
    b = a + rng.randint(2, 12)
    v = pick(rng, ["y", "x", "t"])
    return [
        (f"{a} \\le {v} \\le {b}", f"${v} \\in [{a}, {b}]$"),
        (f"{a} \\le {v} \\le {b}", f"$\\boxed{{[{a}, {b}]}}$"),
        (f"{a} \\le {v} \\le {b}", f"${v} \\in ({a}, {b}]$"),
        (f"{v} \\in [{a}, {b}]", f"${a} \\le {v} \\le {b}$"),
        (f"[{a}, {b}]", f"${a} \\leq {v} \\leq {b}$"),
    ]


@T
def int_function_chain(rng):
    a = rng.randint(-5, 2)
    b = a + rng.randint(1, 6)
    f = pick(rng, ["g(t)", "f(x)", "h(s)"])
    return [
        (f"{a} < {f} < {b}", f"$({a}, {b})$"),
        (f"{a} < {f} < {b}", f"The range is $\\boxed{{\\left({a}, {b}\\right)}}$."),
        (f"{a} < {f} < {b}", f"$[{a}, {b})$"),
        (f"({a}, {b})", f"The range is ${a} < {f} < {b}$."),
    ]


@T
def int_abs_union(rng):
    p, q = rng.randint(1, 4), rng.randint(2, 5)
    lo = p
    hi = frac(2 * q + 1, 2)
    v = pick(rng, ["w", "x", "z"])
    union = f"[-{hi}, -{lo}] \\cup [{lo}, {hi}]"
    return [
        (f"{lo} \\le |{v}| \\le {hi}", f"${union}$"),
        (f"{lo} \\le |{v}| \\le {hi}", f"$[{lo}, {hi}] \\cup [-{hi}, -{lo}]$"),
        (f"{lo} \\le |{v}| \\le {hi}", f"$[-{hi}, {hi}]$"),
        (union, f"${lo} \\le |{v}| \\le {hi}$"),
    ]


@T
def int_abs_less(rng):
    c, r = rng.randint(-5, 5), rng.randint(1, 6)
    v = pick(rng, ["x", "y"])
    sign = pick(rng, ["<", "\\le"])
    lo, hi = c - r, c + r
    inner = f"{v} - {c}" if c >= 0 else f"{v} + {-c}"
    br = ("(", ")") if sign == "<" else ("[", "]")
    return [
        (f"|{inner}| {sign} {r}", f"${br[0]}{lo}, {hi}{br[1]}$"),
        (f"|{inner}| {sign} {r}", f"${lo} {sign} {v} {sign} {hi}$"),
        (f"{br[0]}{lo}, {hi}{br[1]}", f"$|{inner}| {sign} {r}$"),
        (f"|{inner}| {sign} {r}", f"${br[0]}{lo}, {hi + 1}{br[1]}$"),
    ]


@T
def int_one_sided(rng):
    a = rng.randint(-9, 9)
    v = pick(rng, ["x", "k", "m"])
    return [
        (f"{v} \\ge {a}", f"$[{a}, \\infty)$"),
        (f"{v} > {a}", f"$\\boxed{{({a}, +\\infty)}}$"),
        (f"[{a}, \\infty)", f"${v} \\geq {a}$"),
        (f"{v} < {a}", f"$(-\\infty, {a})$"),
        (f"{v} < {a}", f"$(-\\infty, {a}]$"),
        (f"(-\\infty, {a}]", f"The answer is ${v} \\le {a}$."),
    ]


@T
def int_two_rays(rng):
    a = rng.randint(-9, 0)
    b = a + rng.randint(2, 8)
    v = pick(rng, ["x", "t"])
    union = f"(-\\infty, {a}] \\cup [{b}, \\infty)"
    return [
        (union, f"${v} \\le {a}$ or ${v} \\ge {b}$"),
        (f"{v} \\le {a} \\text{{ or }} {v} \\ge {b}", f"${union}$"),
        (union, f"$[{b}, \\infty) \\cup (-\\infty, {a}]$"),
        (union, f"$(-\\infty, {a}) \\cup ({b}, \\infty)$"),
    ]


@T
def int_set_builder(rng):
    a = rng.randint(-6, 3)
    b = a + rng.randint(1, 7)
    return [
        (f"[{a}, {b})", f"$\\{{x \\mid {a} \\le x < {b}\\}}$"),
        (f"{a} \\le x < {b}", f"$x \\in \\left[{a}, {b}\\right)$"),
        (f"{a} \\le x < {b}", f"$\\boxed{{{b} > x \\ge {a}}}$"),
        (f"[{a}, {b})", f"$[{a}, {b}]$"),
    ]


@T
def int_decimal_ends(rng):
    a, b = rng.randint(1, 4), rng.randint(5, 9)
    return [
        (f"\\left({frac(a, 5)}, {frac(b, 3)}\\right]", f"$({a / 5}, {b / 3:.4f}]$"),
        (f"({frac(a, 5)}, {frac(b, 3)}]", f"$({a / 5}, {b / 3:.6f}]$"),
        (f"({frac(a, 4)}, {frac(b, 2)})", f"$({a / 4}, {b / 2})$"),
        (f"({frac(a, 4)}, {frac(b, 2)})", f"$({a / 4}, {b / 2}]$"),
    ]


# ---------------------------------------------------------------- values computed before comparing
@T
def cmp_matrix_sum(rng):
    m = [[rng.randint(0, 5) for _ in range(2)] for _ in range(2)]
    n = [[rng.randint(0, 5) for _ in range(2)] for _ in range(2)]
    s = [[m[i][j] + n[i][j] for j in range(2)] for i in range(2)]
    w = [row[:] for row in s]
    w[0][1] += 1
    return [
        (f"{mat(m)} + {mat(n)}", f"$\\boxed{{{mat(s)}}}$"),
        (mat(s), f"$${mat(m)} + {mat(n)}$$"),
        (f"{mat(m)} + {mat(n)}", f"$\\boxed{{{mat(w)}}}$"),
        (f"{mat(m)} + {mat(n)}", f"$\\boxed{{{mat(s, 'bmatrix')}}}$"),
    ]


@T
def cmp_identity_product(rng):
    m = [[rng.randint(-5, 9) for _ in range(2)] for _ in range(2)]
    eye = mat([[1, 0], [0, 1]])
    w = [row[:] for row in m]
    w[1][0] += 2
    return [
        (f"{eye} {mat(m)}", f"$\\boxed{{{mat(m)}}}$"),
        (f"{mat(m)} {eye}", f"$\\boxed{{{mat(m, 'bmatrix')}}}$"),
        (mat(m), f"$${eye}{mat(m)}$$"),
        (f"{eye} {mat(m)}", f"$\\boxed{{{mat(w)}}}$"),
    ]


@T
def cmp_scalar_matrix(rng):
    k = rng.randint(2, 5)
    m = [[rng.randint(-4, 6) for _ in range(2)] for _ in range(2)]
    km = [[k * c for c in row] for row in m]
    return [
        (f"{k} {mat(m)}", f"$\\boxed{{{mat(km)}}}$"),
        (mat(km), f"$\\boxed{{{k}{mat(m)}}}$"),
        (f"{k} {mat(m)}", f"$\\boxed{{{mat(m)}}}$"),
    ]


@T
def cmp_arithmetic(rng):
    a, b = rng.randint(2, 9), rng.randint(2, 6)
    forms = [(f"{a}^{{{b}}} - 1", a**b - 1), (f"\\binom{{{a + 3}}}{{2}}", (a + 3) * (a + 2) // 2), (f"{a} \\cdot {b} + {a}", a * b + a), (f"\\sqrt{{{a * a}}}", a), (f"{a}! ", None)]
    expr, value = pick(rng, forms[:4])
    return [
        (expr, f"$\\boxed{{{value}}}$"),
        (str(value), f"$\\boxed{{{expr}}}$"),
        (expr, f"$\\boxed{{{value + 1}}}$"),
    ]


@T
def cmp_decimal_precision(rng):
    a, b = pick(rng, [(2, 3), (1, 3), (5, 6), (1, 7), (3, 7), (4, 9), (5, 11)])
    v = a / b
    return [
        (frac(a, b), f"$\\boxed{{{v:.2f}}}$"),
        (frac(a, b), f"$\\boxed{{{v:.4f}}}$"),
        (frac(a, b), f"$\\boxed{{{v:.6f}}}$"),
        (frac(a, b), f"The probability is about {v:.3f}."),
        (f"{v:.2f}", f"$\\boxed{{{frac(a, b)}}}$"),
    ]


@T
def cmp_decimal_matrix(rng):
    pairs = [(rng.randint(1, 8), pick(rng, [3, 6, 7, 9])) for _ in range(4)]
    gold = mat([[frac(*pairs[0]), frac(*pairs[1])], [frac(*pairs[2]), frac(*pairs[3])]])
    six = mat([[f"{pairs[0][0] / pairs[0][1]:.6f}", f"{pairs[1][0] / pairs[1][1]:.6f}"], [f"{pairs[2][0] / pairs[2][1]:.6f}", f"{pairs[3][0] / pairs[3][1]:.6f}"]])
    two = mat([[f"{pairs[0][0] / pairs[0][1]:.2f}", f"{pairs[1][0] / pairs[1][1]:.2f}"], [f"{pairs[2][0] / pairs[2][1]:.2f}", f"{pairs[3][0] / pairs[3][1]:.2f}"]])
    return [(gold, f"$\\boxed{{{six}}}$"), (gold, f"$\\boxed{{{two}}}$")]


@T
def cmp_exact_decimal(rng):
    a, b = rng.randint(1, 19), pick(rng, [2, 4, 5, 8, 20, 25])
    v = a / b
    return [
        (frac(a, b), f"$\\boxed{{{v:g}}}$"),
        (f"{v:g}", f"$\\boxed{{{frac(a, b)}}}$"),
        (frac(a, b), f"$\\boxed{{{v + 0.01:g}}}$"),
    ]


# ---------------------------------------------------------------- decimal commas
def comma(x):
    return x.replace(".", ",")


def dec2(rng, places=2):
    whole = rng.randint(0, 99)
    frac_ = rng.randint(1, 10**places - 1)
    while frac_ % 10 == 0:
        frac_ = rng.randint(1, 10**places - 1)
    return f"{whole}.{frac_:0{places}d}"


@T
def dcm_price(rng):
    d = dec2(rng)
    return [
        (d, f"The ticket costs €{comma(d)}."),
        (d, f"In total she pays {comma(d)} €."),
        (d, f"The ticket costs €{comma(str(round(float(d) + 1, 2)))}."),
    ]


@T
def dcm_equation_plain(rng):
    d = dec2(rng, 1)
    v = pick(rng, ["x", "t", "v"])
    return [
        (d, f"Daraus folgt {v} = {comma(d)}"),
        (d, f"Solving gives {v} = {comma(d)}, which is positive."),
        (d, f"Daraus folgt {v} = {comma(str(round(float(d) + 2, 1)))}"),
    ]


@T
def dcm_three_decimals(rng):
    d = dec2(rng, 3)
    return [
        (d, f"The answer is {comma(d)}"),
        (d.replace(".", ""), f"The answer is {comma(d)}"),
        (d, f"Answer: {comma(d)}"),
    ]


@T
def dcm_thousands(rng):
    n = rng.randint(1001, 99999)
    s = f"{n:,}"
    return [
        (str(n), f"The population is {s} people."),
        (str(n), f"So the answer is $\\boxed{{{s}}}$."),
        (f"{n / 1000:.3f}", f"The answer is {s}"),
    ]


@T
def dcm_math_comma(rng):
    d = dec2(rng)
    return [
        (d, f"$\\boxed{{{d.replace('.', '{,}')}}}$"),
        (d, f"so $m = {comma(d)}$ kg"),
        (comma(d), f"${d}$"),
        (comma(d), f"The mass is {comma(d)} kg."),
    ]


@T
def dcm_percent(rng):
    d = dec2(rng, 1)
    return [
        (f"{d}\\%", f"The growth was {comma(d)}%."),
        (f"{d}\\%", f"The growth was {comma(d)} percent."),
        (f"{d}\\%", f"The growth was {comma(str(round(float(d) + 1, 1)))}%."),
    ]


# ---------------------------------------------------------------- answers in prose
@T
def pr_minerva_thousands(rng):
    n = rng.randint(1001, 99999)
    s = f"{n:,}"
    return [
        (str(n), f"Final Answer: The final answer is ${s}$. I hope it is correct."),
        (str(n), f"Final Answer: The final answer is ${s.replace(',', '{,}')}$. I hope it is correct."),
        (str(n), f"Final Answer: The final answer is ${n + 10:,}$. I hope it is correct."),
        (str(n), f"Final Answer: The final answer is {s}. I hope it is correct."),
    ]


@T
def pr_named_then_number(rng):
    n = rng.randint(2, 99)
    name = pick(rng, ["$k$", "$n$", "value of $m$", "possible $x$", "integer $N$"])
    adj = pick(rng, ["largest", "smallest", "only", "least"])
    return [
        (str(n), f"The {adj} {name} is {n}."),
        (str(n), f"{pick(rng, WORK)}The {adj} {name} is {n}."),
        (str(n), f"The {adj} {name} is {n + 1}."),
        (str(n), f"The {adj} {name} is ${n}$."),
    ]


@T
def pr_area_after_computation(rng):
    a, b = rng.randint(3, 15), rng.randint(3, 15)
    shape = pick(rng, ["$PQRS$", "$ABCD$", "the rectangle $WXYZ$"])
    return [
        (str(a * b), f"The sides are ${a}$ and ${b}$, so $A = {a} \\cdot {b} = {a * b}$, so the area of {shape} is {a * b}."),
        (str(a * b), f"We get ${a} \\times {b}$, so the area of {shape} is {a * b}."),
        (str(a * b), f"We get ${a} \\times {b} = {a * b}$, so the area of {shape} is {a * b + a}."),
        (str(a * b), f"The sides are {a} and {b}, so the area of {shape} is $ {a * b} $ square units."),
    ]


@T
def pr_chat_marker(rng):
    n, m = rng.randint(2, 99), rng.randint(100, 999)
    marker = pick(rng, ["<|im_end|>\n<|im_start|>user", "<|im_start|>user", "<|eot_id|><|start_header_id|>user<|end_header_id|>", "</s><s>[INST]"])
    return [
        (str(n), f"So the answer is {n}.{marker}\nNow compute {m} divided by 4."),
        (str(n), f"Therefore the answer is $\\boxed{{{n}}}$.{marker}\nWhat is {m} + 1?"),
        (str(n), f"The total is ${n}$.{marker}\nThanks! And if there were {m}?"),
        (str(m), f"So the answer is {n}.{marker}\nNow compute {m} divided by 4."),
    ]


@T
def pr_boxed_left_right(rng):
    a, b, c = rng.randint(-9, 9), rng.randint(1, 9), rng.randint(2, 9)
    return [
        (f"({a}, {frac(b, c)})", f"The vertex is at $\\boxed{{\\left( {a}, \\frac{{{b}}}{{{c}}} \\right)}}$, as claimed."),
        (f"({a}, {frac(b, c)})", f"The vertex is at \\boxed{{\\left( {a}, \\frac{{{b}}}{{{c}}} \\right)}} as claimed."),
        (f"\\left[{a}, {a + b}\\right)", f"The set is $\\boxed{{\\left[ {a}, {a + b} \\right)}}$ in the end."),
        (f"({a}, {frac(b, c)})", f"The vertex is at $\\boxed{{\\left( {a}, \\frac{{{c}}}{{{b}}} \\right)}}$, as claimed."),
    ]


@T
def pr_words_around(rng):
    n = rng.randint(10, 500)
    unit = pick(rng, ["apples", "students", "meters", "dollars", "minutes"])
    return [
        (str(n), f"Altogether there are {n} {unit}."),
        (str(n), f"Altogether there are **{n}** {unit} left over."),
        (str(n), f"Altogether there are $\\textbf{{{n}}}$ {unit}."),
        (str(n), f"Altogether there are {n} {unit}, and {rng.randint(2, 9)} were eaten."),
    ]


@T
def pr_therefore_equals(rng):
    a, b = rng.randint(2, 20), rng.randint(2, 20)
    return [
        (str(a + b), f"Therefore, $x + y = {a} + {b} = {a + b}$."),
        (str(a + b), f"Thus, the sum is ${a + b}$, which is what we wanted."),
        (str(a + b), f"Therefore, $x + y = {a + b}$. Checking, ${a} + {b} = {a + b}$ indeed."),
        (str(a + b), f"Therefore, $x + y = {a} + {b} = {a + b + 1}$."),
    ]


# ---------------------------------------------------------------- several answers, in any order
@T
def ao_tuples_or(rng):
    a, b = sorted(rng.sample(range(1, 15), 2))
    return [
        (f"({a},{b}) \\text{{ or }} ({b},{a})", f"$({b},{a}), ({a},{b})$"),
        (f"({a},{b}), ({b},{a})", f"$({b},{a})$ or $({a},{b})$"),
        (f"({a},{b}), ({b},{a})", f"$\\boxed{{({a},{b})}}$"),
        (f"\\{{({a},{b}), ({b},{a})\\}}", f"$\\{{({b},{a}), ({a},{b})\\}}$"),
    ]


@T
def ao_set_of_tuples(rng):
    pts = [(rng.randint(-5, 9), rng.randint(-5, 9)) for _ in range(3)]
    order = pts[:]
    rng.shuffle(order)
    s = lambda ps: ", ".join(f"({x}, {y})" for x, y in ps)  # noqa: E731
    return [
        (f"\\{{{s(pts)}\\}}", f"$\\boxed{{\\{{{s(order)}\\}}}}$"),
        (s(pts), f"The solutions are ${s(order)}$."),
        (s(pts), f"The solutions are ${s(order[:2])}$."),
    ]


@T
def ao_function_values(rng):
    a = rng.randint(1, 9)
    f = pick(rng, ["g(x)", "f(x)", "h(t)"])
    return [
        (f"{f}={a} \\text{{ or }} {f}=-{a}", f"${f}={a} \\text{{ and }} {f}=-{a}$"),
        (f"{f}={a} \\text{{ or }} {f}=-{a}", f"${f}=-{a}$ or ${f}={a}$"),
        (f"{f}={a} \\text{{ or }} {f}=-{a}", f"${f}={a}$"),
        (f"{a}, -{a}", f"${f} = \\pm {a}$"),
    ]


@T
def ao_roots(rng):
    xs = rng.sample(range(-9, 10), 3)
    ys = xs[:]
    rng.shuffle(ys)
    return [
        (", ".join(map(str, xs)), f"$x = {ys[0]}, x = {ys[1]}, x = {ys[2]}$"),
        (", ".join(map(str, xs)), f"The roots are ${ys[0]}$, ${ys[1]}$, and ${ys[2]}$."),
        (", ".join(map(str, xs)), f"$x \\in \\{{{ys[0]}, {ys[1]}, {ys[2]}\\}}$"),
        (", ".join(map(str, xs)), f"The roots are ${ys[0]}$ and ${ys[1]}$."),
    ]


@T
def ao_gold_or_words(rng):
    a, b = sorted(rng.sample(range(1, 30), 2))
    return [
        (f"{a} \\text{{ or }} {b}", f"$\\boxed{{{b}, {a}}}$"),
        (f"{a} \\text{{ and }} {b}", f"${b}$ and ${a}$"),
        (f"{a} \\text{{ or }} {b}", f"$\\boxed{{{b}}}$"),
        (f"{a}, {b}", f"\\boxed{{{b}}} \\text{{ or }} \\boxed{{{a}}}"),
    ]


@T
def ao_pm(rng):
    a, b = rng.randint(1, 9), pick(rng, [2, 3, 5, 7])
    return [
        (f"{a} \\pm \\sqrt{{{b}}}", f"$x = {a} + \\sqrt{{{b}}}, {a} - \\sqrt{{{b}}}$"),
        (f"{a} + \\sqrt{{{b}}}, {a} - \\sqrt{{{b}}}", f"$\\boxed{{{a} \\pm \\sqrt{{{b}}}}}$"),
        (f"{a} - \\sqrt{{{b}}}, {a} + \\sqrt{{{b}}}", f"${a} + \\sqrt{{{b}}}$"),
    ]


# ---------------------------------------------------------------- false accepts: answers split across lines
@T
def fp_split_inline(rng):
    n = rng.randint(2, 99)
    return [
        (str(n), f"The value is $\n {n} \n$"),
        (f"\\sqrt{{{n}}}", f"The value is $\n \\sqrt{{{n}}} \n$"),
        (f"\\frac{{\\pi}}{{{n}}}", f"The angle is $\n\\frac{{\\pi}}{{{n}}}\n$."),
    ]


@T
def fp_split_expression(rng):
    a, b = rng.randint(2, 9), rng.randint(1, 9)
    return [
        (f"{a}x + {b}", f"So $f(x) =\n{a}x + {b}$"),
        (f"{a}x + {b}", f"So $f(x) = {a}x\n+ {b}$"),
        (f"x^{a}", f"We get $\nx^{a}\n$ in the end."),
    ]


@T
def fp_split_parens(rng):
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    return [
        (f"\\sqrt{{{a}}}", f"Hence \\(\n\\sqrt{{{a}}}\n\\)"),
        (f"{a}\\pi", f"Hence \\({a}\n\\pi\\)"),
        (f"{frac(a, b)}", f"Hence \\(\n{frac(a, b)}\n\\)"),
    ]


@T
def fp_split_across_display(rng):
    a, b = rng.randint(1, 9), rng.randint(10, 99)
    return [
        (f"{a}{b}", f"$$\n{a}\n{b}\n$$"),
        (f"{a}{b}", f"The answer: $$ {a}\n{b} $$"),
        (f"\\sqrt{{{b}}}", f"$$\n\\sqrt{{{b}}}\n$$"),
    ]


THIRD = {
    "equation-rhs": [eqr_tuple_label, eqr_two_labels, eqr_ratio_label, eqr_fraction_label, eqr_abs_label, eqr_angle_label, eqr_value_label, eqr_expression_label],
    "intervals": [int_chain_member, int_function_chain, int_abs_union, int_abs_less, int_one_sided, int_two_rays, int_set_builder, int_decimal_ends],
    "computed": [cmp_matrix_sum, cmp_identity_product, cmp_scalar_matrix, cmp_arithmetic, cmp_decimal_precision, cmp_decimal_matrix, cmp_exact_decimal],
    "decimal-comma": [dcm_price, dcm_equation_plain, dcm_three_decimals, dcm_thousands, dcm_math_comma, dcm_percent],
    "prose": [pr_minerva_thousands, pr_named_then_number, pr_area_after_computation, pr_chat_marker, pr_boxed_left_right, pr_words_around, pr_therefore_equals],
    "any-order": [ao_tuples_or, ao_set_of_tuples, ao_function_values, ao_roots, ao_gold_or_words, ao_pm],
    "false-accepts": [fp_split_inline, fp_split_expression, fp_split_parens, fp_split_across_display],
}
THIRD_SEED = 20261217
THIRD_DRAWS = 3


# ---------------------------------------------------------------- late: written after the third pass's rules, measured once
SOLUTION = "We begin by restating the conditions.\n\nFirst, simplify what is given.\nThen solve for the unknown.\n\n"


@T
def late_eqr_solution(rng):
    a, b = rng.randint(2, 9), rng.randint(10, 30)
    name = pick(rng, ["(u, v)", "(p, q)"])
    return [
        (f"{name} = ({a}, {b})", f"{SOLUTION}Substituting back, the pair is $\\boxed{{({a}, {b})}}$."),
        (f"{name} = ({a}, {b})", f"{SOLUTION}Substituting back, the pair is $\\boxed{{({b}, {a})}}$."),
        (f"OM = {b}", f"{SOLUTION}Hence the distance is ${b}$."),
        (f"\\frac{{OA}}{{OB}} = \\frac{{{a}}}{{{b}}}", f"{SOLUTION}So the ratio is ${a}:{b}$."),
        (f"{a} u = {b}", f"{SOLUTION}So $\\boxed{{{b}}}$."),
    ]


@T
def late_interval_solution(rng):
    c, r = rng.randint(-4, 4), rng.randint(1, 5)
    lo, hi = c - r, c + r
    inner = f"x - {c}" if c >= 0 else f"x + {-c}"
    return [
        (f"|{inner}| \\le {r}", f"{SOLUTION}Therefore $x \\in \\boxed{{[{lo}, {hi}]}}$."),
        (f"|{inner}| > {r}", f"{SOLUTION}Therefore the solution set is $(-\\infty, {lo}) \\cup ({hi}, \\infty)$."),
        (f"|{inner}| > {r}", f"{SOLUTION}Therefore the solution set is $(-\\infty, {lo}] \\cup [{hi}, \\infty)$."),
        (f"[{lo}, {hi}]", f"{SOLUTION}Therefore $|{inner}| \\le {r}$."),
        (f"{lo} < t \\le {hi}", f"{SOLUTION}So $t$ ranges over $\\left({lo}, {hi}\\right]$."),
    ]


@T
def late_computed_solution(rng):
    m = [[rng.randint(-3, 6) for _ in range(2)] for _ in range(2)]
    n = [[rng.randint(-3, 6) for _ in range(2)] for _ in range(2)]
    d = [[m[i][j] - n[i][j] for j in range(2)] for i in range(2)]
    a, b = pick(rng, [(3, 7), (2, 9), (4, 11), (5, 13)])
    return [
        (f"{mat(m)} - {mat(n)}", f"{SOLUTION}$$\\boxed{{{mat(d, 'bmatrix')}}}$$"),
        (mat(d), f"{SOLUTION}The difference is $${mat(m)} - {mat(n)}.$$"),
        (frac(a, b), f"{SOLUTION}The probability is $\\boxed{{{a / b:.6f}}}$."),
        (frac(a, b), f"{SOLUTION}The probability is $\\boxed{{{a / b:.3f}}}$."),
    ]


@T
def late_decimal_comma_solution(rng):
    d = dec2(rng, 2)
    return [
        (d, f"{SOLUTION}Die Lösung ist x = {comma(d)}."),
        (d, f"{SOLUTION}El resultado es {comma(d)} metros."),
        (d, f"{SOLUTION}Die Lösung ist x = {comma(str(round(float(d) + 3, 2)))}."),
    ]


@T
def late_prose_solution(rng):
    n, m = rng.randint(10, 99), rng.randint(100, 500)
    return [
        (str(n), f"{SOLUTION}Adding these up, the number of handshakes is {n}."),
        (str(n), f"{SOLUTION}So the perimeter of $\\triangle ABC$ is ${n}$ units.<|im_end|>\n<|im_start|>user\nNow use {m}."),
        (f"{n * 1000}", f"{SOLUTION}Final Answer: The final answer is ${n},000$. I hope it is correct."),
        (f"(1, {frac(1, n)})", f"{SOLUTION}The tangent point is $\\boxed{{\\left(1, \\frac{{1}}{{{n}}}\\right)}}$ on the curve."),
        (str(n), f"{SOLUTION}The value of $k$ is {n + 1}."),
    ]


@T
def late_any_order_solution(rng):
    a, b, c = rng.sample(range(-8, 12), 3)
    return [
        (f"{a}, {b}, {c}", f"{SOLUTION}The zeros are $x = {c}$, $x = {a}$, and $x = {b}$."),
        (f"({a}, {b}), ({b}, {a})", f"{SOLUTION}Both $({b}, {a})$ and $({a}, {b})$ work."),
        (f"{a}, {b}, {c}", f"{SOLUTION}The zeros are $x = {c}$ and $x = {a}$."),
        (f"\\{{{a}, {b}\\}}", f"{SOLUTION}$\\boxed{{{b}, {a}}}$"),
    ]


@T
def late_false_accepts_solution(rng):
    a, b = rng.randint(2, 9), rng.randint(2, 30)
    return [
        (f"\\sqrt{{{b}}}", f"{SOLUTION}Thus the length is $\n\\sqrt{{{b}}}\n$."),
        (f"\\frac{{{a}}}{{\\pi}}", f"{SOLUTION}So the ratio is \\(\n\\frac{{{a}}}{{\\pi}}\n\\)"),
        (f"{a}{b}", f"{SOLUTION}We get $\\boxed{{{a}\n{b}}}$."),
    ]


THIRD_LATE = {
    "equation-rhs": [late_eqr_solution],
    "intervals": [late_interval_solution],
    "computed": [late_computed_solution],
    "decimal-comma": [late_decimal_comma_solution],
    "prose": [late_prose_solution],
    "any-order": [late_any_order_solution],
    "false-accepts": [late_false_accepts_solution],
}
THIRD_LATE_SEED = 20261218
THIRD_LATE_DRAWS = 4
