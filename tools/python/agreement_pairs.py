#!/usr/bin/env python3
"""Writes the gold/prediction pairs of test/fixtures/grader/math-verify-agreement.jsonl (before Math-Verify's verdicts
are added by math_verify_verdicts.py), one {"pass", "family", "template", "split", "gold", "pred"} line each.

    python3 agreement_pairs.py > PAIRS.jsonl
    python3 math_verify_verdicts.py PAIRS.jsonl --keep > test/fixtures/grader/math-verify-agreement.jsonl

Every template is ours: a way an answer is written in the issue's families (decimal commas, relations, labelled
answers, several boxes, unordered collections, equations, extraction from long answers, matrices, text and percents,
false accepts), drawn with seeded random numbers, each drawn once right and once wrong where a wrong one exists. A
quarter of the templates of every family (picked by the seed, not by us) form the `held-out` split: the grader's
rules are written against the `dev` split only, and the held-out one says how well they carry to unseen forms.
The `late` split was written after the rules, in the style of whole solutions, and measured once.

Each row says its `pass`: 2 for the families above, 3 for the third pass's (agreement_pairs_third.py: answers as
equations or with labels, intervals, values worked out first, decimal commas, prose, several answers in any order,
answers split across lines), split the same way with seeds of their own.
"""
import json
import random
import sys

from agreement_pairs_third import THIRD, THIRD_DRAWS, THIRD_LATE, THIRD_LATE_DRAWS, THIRD_LATE_SEED, THIRD_SEED

SEED = 20261203
DRAWS = 6  # each template is drawn this many times, with fresh numbers
HELD_OUT_SHARE = 0.25


def fmt(x):
    return str(x)


def dec(rng, places=2):
    whole = rng.randint(1, 99)
    frac = rng.randint(1, 10**places - 1)
    while frac % 10 == 0:
        frac = rng.randint(1, 10**places - 1)
    return f"{whole}.{frac:0{places}d}"


def other(rng, n, spread=5):
    d = rng.randint(1, spread)
    return n + d if rng.random() < 0.5 else n - d


def wrong_decimal(s):
    whole, frac = s.split(".")
    return f"{int(whole) + 1}.{frac}"


# Each template: rng -> list of (gold, pred). Where the answer can be wrong, one right and one wrong pair.

def T(fn):
    fn.template = fn.__name__
    return fn


# ---------------------------------------------------------------- decimal commas
@T
def dc_answer_is(rng):
    d = dec(rng)
    return [(d, f"After rounding, the answer is {d.replace('.', ',')}"), (d, f"After rounding, the answer is {wrong_decimal(d).replace('.', ',')}")]


@T
def dc_sentence_end(rng):
    d = dec(rng, 1)
    return [(d, f"Each piece weighs {d.replace('.', ',')} kg."), (d, f"Each piece weighs {wrong_decimal(d).replace('.', ',')} kg.")]


@T
def dc_in_math(rng):
    d = dec(rng)
    return [(d, f"So $x = {d.replace('.', ',')}$."), (d, f"The result is ${d.replace('.', ',')}$")]


@T
def dc_boxed(rng):
    d = dec(rng)
    return [(d, f"\\boxed{{{d.replace('.', ',')}}}"), (d, f"\\boxed{{{d.replace('.', '{,}')}}}")]


@T
def dc_thousands(rng):
    n = rng.randint(1000, 999999)
    s = f"{n:,}"
    return [(str(n), f"The total is {s}"), (str(n), f"The total is {f'{other(rng, n, 900):,}'}"), (str(n), f"$\\boxed{{{s}}}$")]


@T
def dc_gold_comma(rng):
    d = dec(rng, 1)
    return [(d.replace(".", ","), d), (d.replace(".", ","), f"\\boxed{{{d}}}")]


@T
def dc_bare(rng):
    d = dec(rng, 3)
    return [(d, d.replace(".", ",")), (d, wrong_decimal(d).replace(".", ","))]


@T
def dc_final_answer(rng):
    d = dec(rng, 2)
    return [(d, f"Final answer: {d.replace('.', ',')}"), (d, f"Final answer: {wrong_decimal(d).replace('.', ',')}")]


# ---------------------------------------------------------------- relations
@T
def rel_geq_spellings(rng):
    a = rng.randint(-9, 20)
    v = rng.choice("xytk")
    g = rng.choice([f"{v} \\geq {a}", f"{v} \\ge {a}", f"{v}\\geqslant {a}"])
    p = rng.choice([f"{v} >= {a}", f"{v} \\ge {a}", f"{v} \\geq {a}", f"{v}≥{a}"])
    return [(g, f"${p}$"), (g, f"${v} > {a}$"), (g, f"${v} \\ge {other(rng, a)}$")]


@T
def rel_neq_spellings(rng):
    a = rng.randint(-9, 20)
    v = rng.choice("xyn")
    return [(f"{v} \\neq {a}", f"${v} != {a}$"), (f"{v} \\ne {a}", f"$\\boxed{{{v} \\neq {a}}}$"), (f"{v} \\neq {a}", f"${v} \\neq {other(rng, a)}$")]


@T
def rel_flipped(rng):
    a = rng.randint(1, 15)
    v = rng.choice("xyz")
    return [(f"{v} > {a}", f"${a} < {v}$"), (f"{v} \\le {a}", f"${a} \\ge {v}$"), (f"{v} > {a}", f"${a} > {v}$")]


@T
def rel_negated_sides(rng):
    a = rng.randint(1, 15)
    v = rng.choice("xyt")
    return [(f"{v} > {a}", f"The solution is $-{v} < -{a}$."), (f"{v} \\geq {a}", f"$\\boxed{{-{v} \\leq -{a}}}$"), (f"{v} > {a}", f"$-{v} > -{a}$")]


@T
def rel_scaled(rng):
    a = rng.randint(1, 9)
    k = rng.randint(2, 5)
    return [(f"x < {a}", f"${k}x < {k * a}$"), (f"x < {a}", f"${k}x < {k * a + 1}$")]


@T
def rel_interval_for_inequality(rng):
    a = rng.randint(-5, 5)
    b = a + rng.randint(1, 9)
    v = rng.choice("xt")
    return [(f"{a} < {v} \\le {b}", f"${v} \\in ({a}, {b}]$"), (f"{a} < {v} \\le {b}", f"${v} \\in [{a}, {b}]$"), (f"{a} \\le {v} \\le {b}", f"$\\boxed{{[{a},{b}]}}$")]


@T
def rel_inequality_for_interval(rng):
    a = rng.randint(-5, 5)
    b = a + rng.randint(1, 9)
    return [(f"({a}, {b}]", f"${a} < x \\le {b}$"), (f"[{a}, \\infty)", f"$x \\geq {a}$"), (f"({a},{b})", f"\\boxed{{({a},{b})}}")]


@T
def rel_union_chain(rng):
    a = rng.randint(-9, 0)
    b = a + rng.randint(1, 9)
    return [
        (f"(-\\infty, {a}) \\cup ({b}, \\infty)", f"$x < {a}$ or $x > {b}$"),
        (f"x < {a} \\text{{ or }} x > {b}", f"$(-\\infty,{a})\\cup({b},\\infty)$"),
        (f"(-\\infty, {a}) \\cup ({b}, \\infty)", f"$({b}, \\infty) \\cup (-\\infty, {a})$"),
        (f"(-\\infty, {a}] \\cup [{b}, \\infty)", f"$(-\\infty,{a})\\cup({b},\\infty)$"),
    ]


@T
def rel_two_sided_chain(rng):
    a = rng.randint(-9, 0)
    b = a + rng.randint(2, 9)
    return [(f"{a} < x < {b}", f"${b} > x > {a}$"), (f"{a} < x < {b}", f"$x > {a}$ and $x < {b}$"), (f"{a} \\le x < {b}", f"$[{a}, {b})$")]


@T
def rel_equation_value(rng):
    a = rng.randint(2, 30)
    return [(f"x = {a}", f"$x={a}$"), (f"x = {a}", f"${a}$"), (str(a), f"$x = {a}$"), (f"x = {a}", f"$y = {a}$")]


# ---------------------------------------------------------------- labelled answers
@T
def lab_tuple_names(rng):
    a, b = rng.randint(1, 9), rng.randint(1, 9)
    names = rng.choice(["(a,b)", "(x, y)", "(m,n)", "(p, q)"])
    return [(f"({a},{b})", f"$\\boxed{{{names}=({a},{b})}}$"), (f"({a},{b})", f"${names} = ({b},{a} + 1)$")]


@T
def lab_ratio_names(rng):
    a, b = rng.randint(1, 9), rng.randint(1, 9)
    while a == b:
        b = rng.randint(1, 9)
    names = rng.choice(["PQ:QR", "AB:BC", "x:y", "AE:EC"])
    return [(f"{a}:{b}", f"${names}={a}:{b}$"), (f"{a}:{b}", f"${names} = {b}:{a}$"), (f"{a}:{b}", f"${names} = {2 * a}:{2 * b}$")]


@T
def lab_assignment_list(rng):
    a, b, c, d = (rng.randint(1, 9) for _ in range(4))
    return [
        (f"({a},{b}),({c},{d})", f"$a={a},b={b};a={c},b={d}$"),
        (f"({a},{b})", f"$a={a}, b={b}$"),
        (f"({a},{b})", f"$\\boxed{{x = {a}, y = {b}}}$"),
        (f"({a},{b})", f"$a={b}, b={a + 1}$"),
    ]


@T
def lab_name_equation(rng):
    n = rng.randint(2, 99)
    name = rng.choice(["AB", "BC", "m\\angle A", "f(3)", "S_{10}", "P", "a_5", "\\theta"])
    return [(str(n), f"So ${name} = {n}$."), (str(n), f"$\\boxed{{{name}={n}}}$"), (str(n), f"${name} = {other(rng, n)}$")]


@T
def lab_gold_named(rng):
    n = rng.randint(2, 99)
    name = rng.choice(["x", "k", "a", "n"])
    return [(f"{name}={n}", f"\\boxed{{{n}}}"), (f"{name} = {n}", f"The value is ${name} = {n}$."), (f"{name}={n}", f"\\boxed{{{other(rng, n)}}}")]


@T
def lab_expression_value(rng):
    a, b = rng.randint(1, 9), rng.randint(1, 9)
    return [(str(a + b), f"$x + y = {a + b}$"), (str(a * b), f"$\\boxed{{ab = {a * b}}}$"), (f"{a+b}", f"$x+y={a + b + 1}$")]


@T
def lab_function_value(rng):
    a, b = rng.randint(2, 9), rng.randint(1, 9)
    return [(f"{a}x+{b}", f"$f(x) = {a}x + {b}$"), (f"f(x)={a}x+{b}", f"${b}+{a}x$"), (f"{a}x+{b}", f"$f(x) = {b}x + {a}$")]


# ---------------------------------------------------------------- several boxes
@T
def box_two_numbers(rng):
    a, b = sorted(rng.sample(range(1, 30), 2))
    return [
        (f"{a},{b}", f"\\boxed{{{a}}}\\boxed{{{b}}}"),
        (f"{a}, {b}", f"$\\boxed{{{a}}}$ and $\\boxed{{{b}}}$"),
        (f"\\boxed{{{a},{b}}}", f"\\boxed{{{a}}}, \\boxed{{{b}}}"),
        (f"{a},{b}", f"\\boxed{{{a}}} \\boxed{{{b + 1}}}"),
    ]


@T
def box_pairs(rng):
    a, b, c, d = (rng.randint(1, 9) for _ in range(4))
    return [
        (f"({a},{b}),({c},{d})", f"$\\boxed{{({a},{b})}}$, $\\boxed{{({c},{d})}}$"),
        (f"({a},{b}),({c},{d})", f"\\boxed{{({c},{d})}} \\quad \\boxed{{({a},{b})}}"),
        (f"({a},{b}),({c},{d})", f"\\boxed{{({a},{b})}}"),
    ]


@T
def box_units(rng):
    n = rng.randint(2, 500)
    unit = rng.choice(["cm", "m", "km", "kg", "hours", "dollars", "cm^2", "m/s"])
    return [
        (str(n), f"$\\boxed{{{n}\\text{{ {unit}}}}}$"),
        (str(n), f"\\boxed{{{n} \\mathrm{{{unit}}}}}"),
        (f"{n}\\text{{ {unit}}}", f"\\boxed{{{n}}}"),
        (str(n), f"$\\boxed{{{n + 1}\\,\\text{{{unit}}}}}$"),
    ]


@T
def box_units_several(rng):
    a, b = rng.randint(2, 50), rng.randint(51, 99)
    return [(f"{a}, {b}", f"\\boxed{{{a}\\text{{ cm}}}} and \\boxed{{{b}\\text{{ cm}}}}"), (f"{a},{b}", f"\\boxed{{{a} \\text{{ m}}}}, \\boxed{{{b} \\text{{ m}}}}")]


@T
def box_far_apart(rng):
    a, b = rng.sample(range(1, 50), 2)
    mid = "We check this against the constraint once more, and it fails, so we try again. " * rng.randint(1, 3)
    return [(str(b), f"First guess \\boxed{{{a}}}. {mid} Now \\boxed{{{b}}}."), (str(a), f"First guess \\boxed{{{a}}}. {mid} Now \\boxed{{{b}}}.")]


@T
def box_set_gold(rng):
    a, b, c = sorted(rng.sample(range(-9, 20), 3))
    return [(f"\\{{{a},{b},{c}\\}}", f"\\boxed{{{a}}}, \\boxed{{{b}}}, \\boxed{{{c}}}"), (f"{a},{b},{c}", f"\\boxed{{{c}}} \\boxed{{{a}}} \\boxed{{{b}}}")]


# ---------------------------------------------------------------- unordered collections
@T
def un_tuple_set_order(rng):
    a, b, c, d = (rng.randint(1, 9) for _ in range(4))
    return [
        (f"\\{{({a},{b}),({c},{d})\\}}", f"$\\{{({c},{d}),({a},{b})\\}}$"),
        (f"({a},{b}),({c},{d})", f"$({c},{d}),({a},{b})$"),
        (f"({a},{b}),({c},{d})", f"$({c},{d}),({a},{b + 1})$"),
    ]


@T
def un_numbers_order(rng):
    xs = rng.sample(range(-20, 20), rng.randint(2, 4))
    ys = list(xs)
    rng.shuffle(ys)
    return [(", ".join(map(str, xs)), f"$\\boxed{{{', '.join(map(str, ys))}}}$"), (", ".join(map(str, xs)), f"${', '.join(map(str, ys[:-1]))}$")]


@T
def un_repeats(rng):
    a, b = rng.sample(range(-9, 10), 2)
    return [(f"{a}, {b}", f"$\\boxed{{{a}, {a}, {b}}}$"), (f"\\{{{a}, {b}\\}}", f"$\\{{{b},{a},{b}\\}}$"), (f"{a},{a},{b}", f"${a}, {b}$")]


@T
def un_braces_parens(rng):
    a, b = sorted(rng.sample(range(1, 20), 2))
    return [(f"\\{{{a},{b}\\}}", f"$({a},{b})$"), (f"({a},{b})", f"$\\{{{a},{b}\\}}$"), (f"\\{{{a},{b}\\}}", f"$({b},{a})$"), (f"({a},{b})", f"$\\{{{b},{a}\\}}$")]


@T
def un_set_list(rng):
    xs = sorted(rng.sample(range(-9, 20), 3))
    s = ",".join(map(str, xs))
    return [(f"\\{{{s}\\}}", f"${s}$"), (s, f"$\\{{{s}\\}}$"), (f"\\{{{s}\\}}", f"$x \\in \\{{{s}\\}}$")]


@T
def un_roots(rng):
    a, b = rng.sample(range(-9, 10), 2)
    return [(f"x={a}, x={b}", f"$x = {b}$ or $x = {a}$"), (f"{a}, {b}", f"$x_1 = {a}, x_2 = {b}$"), (f"{a}, {b}", f"$x = {a}$")]


@T
def un_fraction_members(rng):
    a, b = rng.randint(1, 9), rng.randint(2, 9)
    return [(f"\\{{\\frac{{{a}}}{{{b}}}, -\\frac{{{a}}}{{{b}}}\\}}", f"$\\pm\\frac{{{a}}}{{{b}}}$"), (f"\\frac{{{a}}}{{{b}}}, -\\frac{{{a}}}{{{b}}}", f"$-{a}/{b}, {a}/{b}$")]


# ---------------------------------------------------------------- equations
@T
def eq_line_factor(rng):
    a, b, c = rng.randint(1, 9), rng.randint(1, 9), rng.randint(1, 20)
    k = rng.randint(2, 5)
    return [(f"{a}x + {b}y = {c}", f"${k * a}x + {k * b}y = {k * c}$"), (f"{a}x+{b}y={c}", f"$-{a}x - {b}y = -{c}$"), (f"{a}x + {b}y = {c}", f"${k * a}x + {k * b}y = {c}$")]


@T
def eq_plane_factor(rng):
    a, b, c, d = rng.randint(1, 9), rng.randint(1, 9), rng.randint(1, 9), rng.randint(1, 30)
    k = rng.randint(2, 4)
    return [(f"{a}x + {b}y + {c}z = {d}", f"${k * a}x+{k * b}y+{k * c}z-{k * d}=0$"), (f"{a}x+{b}y+{c}z={d}", f"$\\boxed{{{a}x+{b}y+{c}z-{d + 1}=0}}$")]


@T
def eq_slope_intercept(rng):
    m, c = rng.randint(1, 9), rng.randint(1, 9)
    return [(f"y = {m}x + {c}", f"${m}x - y + {c} = 0$"), (f"y={m}x+{c}", f"$y - {c} = {m}x$"), (f"y = {m}x + {c}", f"$y = {m}x - {c}$")]


@T
def eq_circle_forms(rng):
    h, k, r = rng.randint(1, 5), rng.randint(1, 5), rng.randint(1, 6)
    expanded = f"x^2 - {2 * h}x + y^2 - {2 * k}y = {r * r - h * h - k * k}"
    return [(f"(x-{h})^2+(y-{k})^2={r * r}", f"${expanded}$"), (f"(x-{h})^2 + (y-{k})^2 = {r * r}", f"$(x-{h})^2+(y-{k})^2={r * r + 1}$")]


@T
def eq_chain_last(rng):
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    return [(str(a * b), f"${a}\\cdot {b} = {a * b}$"), (str(a * b), f"$x = {a} \\times {b} = {a * b}$"), (str(a + b), f"$S = {a} + {b} = {a + b + 1}$"), (str(a * b), f"$\\boxed{{A = {a}\\cdot{b} = {a * b}}}$")]


@T
def eq_chain_gold(rng):
    a = rng.randint(2, 50)
    return [(f"x = y = {a}", f"${a}$"), (f"x=y={a}", f"$x = y = {a}$")]


@T
def eq_sides_swapped(rng):
    a, b = rng.randint(1, 9), rng.randint(1, 9)
    return [(f"y = {a}x + {b}", f"${a}x + {b} = y$"), (f"x^2 = {a}y", f"${a}y = x^2$"), (f"y={a}x+{b}", f"$y={b}x+{a}$")]


# ---------------------------------------------------------------- extraction from long answers
LEAD = [
    "We start by writing down what we know. ",
    "Let the unknown be $n$. Adding the two equations gives $2n = 2n$, which tells us nothing new, so we look again. ",
    "First, note that $3 + 4 = 7$ and that $7 \\cdot 2 = 14$. ",
]


@T
def ex_final_answer_colon(rng):
    n = rng.randint(2, 999)
    lead = rng.choice(LEAD)
    return [(str(n), f"{lead}\n\nFinal Answer: {n}"), (str(n), f"{lead}\n\n**Final Answer:** {n}"), (str(n), f"{lead}\nFinal Answer: {other(rng, n)}")]


@T
def ex_is_the_solution(rng):
    n = rng.randint(2, 99)
    lead = rng.choice(LEAD)
    return [(str(n), f"{lead}Therefore, $x = {n}$ is the solution."), (str(n), f"{lead}Thus {n} is the answer."), (str(n), f"{lead}Therefore ${other(rng, n)}$ is the solution.")]


@T
def ex_approx_chain(rng):
    a, b = rng.randint(1, 9), rng.randint(2, 9)
    value = a / b
    return [
        (f"\\frac{{{a}}}{{{b}}}", f"So $x = \\frac{{{a}}}{{{b}}} \\approx {value:.3f}$."),
        (f"{value:.2f}", f"$p \\approx {value:.2f}$"),
        (f"\\frac{{{a}}}{{{b}}}", f"The probability is $\\frac{{{a}}}{{{b}}}\\approx {value:.4f}$"),
        (f"\\frac{{{a}}}{{{b + 1}}}", f"$\\frac{{{a}}}{{{b}}} \\approx {value:.3f}$"),
    ]


@T
def ex_think_block(rng):
    a, n = rng.randint(2, 99), rng.randint(2, 99)
    return [
        (str(n), f"<think>Maybe it is {a}? Try \\boxed{{{a}}}. No.</think>\nThe answer is $\\boxed{{{n}}}$."),
        (str(n), f"<think>\nLet me compute: {n} - 1 + 1 = {n}.\n</think>\n\n{n}"),
        (str(a), f"<think>I guess {a}.</think> Final: $\\boxed{{{n + 100}}}$"),
    ]


@T
def ex_answer_is_sentence(rng):
    n = rng.randint(2, 999)
    return [(str(n), f"Putting it together, the answer is {n}."), (str(n), f"The answer is: ${n}$"), (str(n), f"The answer is {n + 1}, not {n}.")]


@T
def ex_minerva(rng):
    a, b = rng.randint(1, 9), rng.randint(2, 9)
    return [(f"\\frac{{{a}}}{{{b}}}", f"Final Answer: The final answer is $\\frac{{{a}}}{{{b}}}$. I hope it is correct."), (f"\\frac{{{a}}}{{{b}}}", f"Final Answer: The final answer is ${a}/{b + 1}$. I hope it is correct.")]


@T
def ex_last_number(rng):
    a, n = rng.randint(2, 50), rng.randint(51, 999)
    return [(str(n), f"We have {a} boxes, and after filling them all we get {n} items in total."), (str(a), f"We have {a} boxes, and after filling them all we get {n} items in total.")]


@T
def ex_bold_answer(rng):
    n = rng.randint(2, 99)
    return [(str(n), f"Solving step by step.\n\n**Answer:** ${n}$"), (str(n), f"Solving step by step.\n\n**Answer: {n}**"), (str(n), f"**Answer:** ${n + 2}$")]


# ---------------------------------------------------------------- matrices and vectors
def mat(rows, env="pmatrix"):
    return f"\\begin{{{env}}} " + " \\\\ ".join(" & ".join(r) for r in rows) + f" \\end{{{env}}}"


@T
def mx_fraction_decimal(rng):
    n = [[rng.randint(1, 9) for _ in range(2)] for _ in range(2)]
    d = [[rng.randint(2, 9) for _ in range(2)] for _ in range(2)]
    gold = mat([[f"\\frac{{{n[i][j]}}}{{{d[i][j]}}}" for j in range(2)] for i in range(2)])
    six = mat([[f"{n[i][j] / d[i][j]:.6f}" for j in range(2)] for i in range(2)], "bmatrix")
    three = mat([[f"{n[i][j] / d[i][j]:.3f}" for j in range(2)] for i in range(2)])
    return [(gold, f"$\\boxed{{{six}}}$"), (gold, f"$\\boxed{{{three}}}$")]


@T
def mx_vector(rng):
    a, b, c = (rng.randint(-9, 9) for _ in range(3))
    gold = mat([[str(a)], [str(b)], [str(c)]])
    return [(gold, f"$\\begin{{pmatrix}}{a}\\\\{b}\\\\{c}\\end{{pmatrix}}$"), (gold, f"$\\boxed{{\\begin{{bmatrix}} {a} \\\\ {b} \\\\ {c + 1} \\end{{bmatrix}}}}$"), (gold, f"$({a}, {b}, {c})$")]


@T
def mx_decimal_gold(rng):
    a, b = rng.randint(1, 9), rng.randint(2, 9)
    gold = mat([[f"{a / b:.4f}", "0"], ["0", "1"]])
    right = mat([["\\frac{%d}{%d}" % (a, b), "0"], ["0", "1"]])
    wrong = mat([["\\frac{%d}{%d}" % (a + 1, b), "0"], ["0", "1"]])
    return [(gold, f"$\\boxed{{{right}}}$"), (gold, f"$\\boxed{{{wrong}}}$")]


@T
def mx_integer(rng):
    m = [[str(rng.randint(-9, 9)) for _ in range(2)] for _ in range(2)]
    w = [row[:] for row in m]
    w[1][1] = str(int(w[1][1]) + 1)
    return [(mat(m), f"$${mat(m, 'bmatrix')}$$"), (mat(m), f"\\boxed{{{mat(w)}}}"), (mat(m), f"\\boxed{{{mat([m[0]])}}}")]


@T
def mx_sqrt_entries(rng):
    a = rng.randint(2, 7)
    gold = mat([[f"\\sqrt{{{a}}}", "1"], ["1", f"-\\sqrt{{{a}}}"]])
    r = a ** 0.5
    six = mat([[f"{r:.6f}", "1"], ["1", f"{-r:.6f}"]])
    two = mat([[f"{r:.2f}", "1"], ["1", f"{-r:.2f}"]])
    return [(gold, f"$\\boxed{{{six}}}$"), (gold, f"$\\boxed{{{two}}}$")]


# ---------------------------------------------------------------- text and percents
WORDS = ["even", "odd", "Monday", "Friday", "yes", "no", "circle", "parabola", "east", "red", "Alice", "never"]


@T
def tx_text_plain(rng):
    w = rng.choice(WORDS)
    v = rng.choice([x for x in WORDS if x != w])
    return [(f"\\text{{{w}}}", f"\\boxed{{{w}}}"), (w, f"$\\boxed{{\\text{{{w}}}}}$"), (f"\\text{{{w}}}", f"\\boxed{{\\text{{{v}}}}}")]


@T
def tx_text_sentence(rng):
    w = rng.choice(WORDS)
    return [(f"\\text{{{w}}}", f"The answer is {w}."), (f"\\text{{{w}}}", f"So the answer is $\\text{{{w}}}$."), (f"\\text{{{w}}}", f"\\boxed{{\\textbf{{{w}}}}}")]


@T
def tx_choice(rng):
    c = rng.choice("ABCDE")
    d = rng.choice([x for x in "ABCDE" if x != c])
    return [(f"\\text{{({c})}}", f"\\boxed{{({c})}}"), (c, f"\\boxed{{\\text{{{c}}}}}"), (f"\\text{{({c})}}", f"\\boxed{{{d}}}")]


@T
def tx_percent(rng):
    p = rng.randint(1, 99)
    return [
        (f"{p}\\%", f"\\boxed{{{p}\\%}}"),
        (f"{p}\\%", f"\\boxed{{{p / 100}}}"),
        (f"{p}\\%", f"\\boxed{{{p}}}"),
        (f"{p}", f"\\boxed{{{p}\\%}}"),
        (f"{p}\\%", f"The answer is {p} percent."),
        (f"{p / 100}", f"The rate is {p}%."),
    ]


@T
def tx_percent_decimal(rng):
    p = dec(rng, 1)
    return [(f"{p}\\%", f"$\\boxed{{{p}\\%}}$"), (f"{p}\\%", f"${p}$%"), (f"{p}\\%", f"$\\boxed{{{wrong_decimal(p)}\\%}}$")]


@T
def tx_text_with_number(rng):
    n = rng.randint(2, 99)
    return [(str(n), f"\\boxed{{\\text{{{n} apples}}}}"), (f"{n}\\text{{ apples}}", f"\\boxed{{{n}}}"), (str(n), f"\\boxed{{\\text{{{n + 1} apples}}}}")]


# ---------------------------------------------------------------- false accepts to reject
@T
def fa_split_number(rng):
    a, b = rng.randint(1, 9), rng.randint(0, 9)
    return [(f"{a}{b}", f"$${a}\n{b}$$"), (f"{a}{b}", f"\\[{a}\n{b}\\]"), (f"{a}{b}", f"$${a}{b}$$")]


@T
def fa_split_long(rng):
    n = rng.randint(100, 999)
    s = str(n)
    return [(s, f"We get\n$$\n{s[:2]}\n{s[2:]}\n$$"), (s, f"We get\n$$\n{s}\n$$")]


@T
def fa_digits_spaced(rng):
    a, b = rng.randint(1, 9), rng.randint(100, 999)
    return [(f"{a}{b}", f"$\\boxed{{{a} {b}}}$"), (f"{a * b}", f"$\\boxed{{{a} {b}}}$")]


@T
def fa_wrong_variable(rng):
    a = rng.randint(2, 9)
    return [(f"x={a}", f"$y = {a}$"), (f"{a}x", f"${a}y$"), (f"x^{a}", f"$x^{{{a + 1}}}$")]


@T
def fa_truncated_box(rng):
    n = rng.randint(2, 99)
    return [(str(n), f"So the answer is {n}. \\boxed{{{n}"), (str(n), f"\\boxed{{{n}}}")]


FAMILIES = {
    "decimal-comma": [dc_answer_is, dc_sentence_end, dc_in_math, dc_boxed, dc_thousands, dc_gold_comma, dc_bare, dc_final_answer],
    "relations": [rel_geq_spellings, rel_neq_spellings, rel_flipped, rel_negated_sides, rel_scaled, rel_interval_for_inequality, rel_inequality_for_interval, rel_union_chain, rel_two_sided_chain, rel_equation_value],
    "labelled": [lab_tuple_names, lab_ratio_names, lab_assignment_list, lab_name_equation, lab_gold_named, lab_expression_value, lab_function_value],
    "several-boxes": [box_two_numbers, box_pairs, box_units, box_units_several, box_far_apart, box_set_gold],
    "unordered": [un_tuple_set_order, un_numbers_order, un_repeats, un_braces_parens, un_set_list, un_roots, un_fraction_members],
    "equations": [eq_line_factor, eq_plane_factor, eq_slope_intercept, eq_circle_forms, eq_chain_last, eq_chain_gold, eq_sides_swapped],
    "extraction": [ex_final_answer_colon, ex_is_the_solution, ex_approx_chain, ex_think_block, ex_answer_is_sentence, ex_minerva, ex_last_number, ex_bold_answer],
    "matrices": [mx_fraction_decimal, mx_vector, mx_decimal_gold, mx_integer, mx_sqrt_entries],
    "text-percent": [tx_text_plain, tx_text_sentence, tx_choice, tx_percent, tx_percent_decimal, tx_text_with_number],
    "false-accepts": [fa_split_number, fa_split_long, fa_digits_spaced, fa_wrong_variable, fa_truncated_box],
}


# ---------------------------------------------------------------- late: written after the rules, graded once
SOLUTION = "Let us set up the problem. We denote the unknown quantity and write the equations.\n\nStep 1: simplify.\nStep 2: solve.\n\n"


@T
def late_decimal_comma_solution(rng):
    d = dec(rng, 2)
    return [(d, f"{SOLUTION}The mass is therefore {d.replace('.', ',')} g"), (d, f"{SOLUTION}So m = {d.replace('.', ',')}"), (d, f"{SOLUTION}So m = {wrong_decimal(d).replace('.', ',')}")]


@T
def late_relation_solution(rng):
    a = rng.randint(1, 12)
    return [(f"n \\geq {a}", f"{SOLUTION}Hence $n \\ge {a}$."), (f"n > {a}", f"{SOLUTION}Hence $\\boxed{{{a} < n}}$"), (f"n \\leq {a}", f"{SOLUTION}Hence $n < {a}$."), (f"n \\ne {a}", f"{SOLUTION}Hence $\\boxed{{n\\neq {a}}}$")]


@T
def late_interval_solution(rng):
    a = rng.randint(-6, 0)
    b = a + rng.randint(1, 8)
    return [(f"[{a}, {b})", f"{SOLUTION}The solution set is $\\boxed{{[{a},{b})}}$."), (f"{a} \\le x < {b}", f"{SOLUTION}So $x \\in \\left[{a}, {b}\\right)$."), (f"{a} \\le x < {b}", f"{SOLUTION}So $x \\in ({a}, {b})$.")]


@T
def late_labelled_solution(rng):
    a, b = rng.randint(1, 9), rng.randint(10, 19)
    return [(f"({a}, {b})", f"{SOLUTION}Thus $(m, n) = \\boxed{{({a}, {b})}}$."), (f"({a}, {b})", f"{SOLUTION}Thus $\\boxed{{m={a},\\ n={b}}}$."), (str(b), f"{SOLUTION}Thus the length is $\\boxed{{CD = {b}}}$."), (f"({a}, {b})", f"{SOLUTION}Thus $m = {b}$ and $n = {a}$.")]


@T
def late_boxes_solution(rng):
    a, b = sorted(rng.sample(range(-9, 15), 2))
    return [(f"{a}, {b}", f"{SOLUTION}The roots are $\\boxed{{{a}}}$ and $\\boxed{{{b}}}$."), (f"{a}, {b}", f"{SOLUTION}$x_1 = \\boxed{{{a}}}, \\quad x_2 = \\boxed{{{b}}}$"), (f"{b}", f"{SOLUTION}We first guessed \\boxed{{{a}}}, which fails the check. The answer is \\boxed{{{b}}}.")]


@T
def late_unordered_solution(rng):
    xs = sorted(rng.sample(range(-9, 15), 3))
    ys = list(xs)
    rng.shuffle(ys)
    return [(", ".join(map(str, xs)), f"{SOLUTION}The solutions are $x = {ys[0]}, {ys[1]}, {ys[2]}$."), (f"\\{{{', '.join(map(str, xs))}\\}}", f"{SOLUTION}$\\boxed{{\\{{{', '.join(map(str, ys))}\\}}}}$"), (", ".join(map(str, xs)), f"{SOLUTION}$\\boxed{{{', '.join(map(str, ys[:2]))}}}$")]


@T
def late_equation_solution(rng):
    a, b, c = rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 12)
    k = rng.randint(2, 4)
    return [(f"{a}x + {b}y = {c}", f"{SOLUTION}The line is $\\boxed{{{k * a}x + {k * b}y - {k * c} = 0}}$."), (f"y = {a}x + {b}", f"{SOLUTION}The line is $\\boxed{{y - {b} = {a}x}}$."), (f"y = {a}x + {b}", f"{SOLUTION}The line is $\\boxed{{y = {a}x + {b + 1}}}$."), (str(a * b), f"{SOLUTION}$P = {a} \\cdot {b} = \\boxed{{{a * b}}}$")]


@T
def late_extraction_styles(rng):
    n = rng.randint(2, 500)
    return [
        (str(n), f"{SOLUTION}**Final Answer**\n\n$$\\boxed{{{n}}}$$"),
        (str(n), f"{SOLUTION}The final answer is ${n}$."),
        (str(n), f"{SOLUTION}Therefore, the total number of marbles is {n}."),
        (str(n), f"<think>\nHmm, {n + 1}? Let me recount.\n</think>\n\nThe count is {n}."),
        (str(n), f"{SOLUTION}Answer: {n + 3}"),
    ]


@T
def late_approx_solution(rng):
    a, b = rng.randint(1, 9), rng.randint(11, 19)
    v = a / b
    return [(f"\\frac{{{a}}}{{{b}}}", f"{SOLUTION}So the probability is $\\frac{{{a}}}{{{b}}} \\approx {v:.3f}$."), (f"{v:.3f}", f"{SOLUTION}$P \\approx {v:.3f}$"), (f"{v:.3f}", f"{SOLUTION}$P = \\frac{{{a}}}{{{b}}} \\approx {v:.3f}$")]


@T
def late_matrix_solution(rng):
    a, b = rng.randint(1, 9), rng.randint(2, 9)
    gold = mat([[f"\\frac{{{a}}}{{{b}}}", "0"], ["0", f"\\frac{{{b}}}{{{a}}}"]])
    right = mat([[f"{a / b:.6f}", "0"], ["0", f"{b / a:.6f}"]], "bmatrix")
    exact = mat([[f"{a}/{b}", "0"], ["0", f"{b}/{a}"]])
    return [(gold, f"{SOLUTION}$$\\boxed{{{right}}}$$"), (gold, f"{SOLUTION}$$\\boxed{{{exact}}}$$")]


@T
def late_text_percent_solution(rng):
    p = rng.randint(5, 95)
    w = rng.choice(WORDS)
    return [(f"{p}\\%", f"{SOLUTION}The increase is $\\boxed{{{p}\\%}}$."), (f"{p}\\%", f"{SOLUTION}The increase is {p}%."), (f"{p / 100}", f"{SOLUTION}The increase is $\\boxed{{{p}\\%}}$."), (f"\\text{{{w}}}", f"{SOLUTION}So the answer is $\\boxed{{\\text{{{w}}}}}$."), (f"\\text{{{w}}}", f"{SOLUTION}So the answer is {w}.")]


@T
def late_false_accepts(rng):
    a, b = rng.randint(1, 9), rng.randint(10, 99)
    return [(f"{a}{b}", f"{SOLUTION}$$\n{a}\n{b}\n$$"), (f"{a}", f"{SOLUTION}$\\boxed{{{a}{b}}}$"), (f"x = {a}", f"{SOLUTION}$\\boxed{{x^2 = {a * a}}}$")]


LATE = {
    "decimal-comma": [late_decimal_comma_solution],
    "relations": [late_relation_solution, late_interval_solution],
    "labelled": [late_labelled_solution],
    "several-boxes": [late_boxes_solution],
    "unordered": [late_unordered_solution],
    "equations": [late_equation_solution],
    "extraction": [late_extraction_styles, late_approx_solution],
    "matrices": [late_matrix_solution],
    "text-percent": [late_text_percent_solution],
    "false-accepts": [late_false_accepts],
}
LATE_SEED = 20261204
LATE_DRAWS = 4


def emit(families, seed, draws, pass_, seen, late=False) -> None:
    """Prints every template's draws as fixture rows. Unless `late`, a quarter of each family's templates (picked by
    the seed) is the held-out split and the rest dev; late templates are all `late`. A pair seen before is skipped."""
    rng = random.Random(seed)
    for family, templates in families.items():
        held = set() if late else set(rng.sample([t.template for t in templates], max(1, round(len(templates) * HELD_OUT_SHARE))))
        for template in templates:
            for _ in range(draws):
                for gold, pred in template(rng):
                    if (gold, pred) in seen:
                        continue
                    seen.add((gold, pred))
                    split = "late" if late else "held-out" if template.template in held else "dev"
                    print(json.dumps({"pass": pass_, "family": family, "template": template.template, "split": split, "gold": gold, "pred": pred}))


def main() -> None:
    seen = set()
    emit(FAMILIES, SEED, DRAWS, 2, seen)
    # Written after the rules and measured once: how the rules carry to forms written later, in longer responses.
    emit(LATE, LATE_SEED, LATE_DRAWS, 2, seen, late=True)
    # The third pass: the families the grader still missed, a quarter of each family's templates held out again.
    emit(THIRD, THIRD_SEED, THIRD_DRAWS, 3, seen)
    # Written after the third pass's rules, as whole solutions.
    emit(THIRD_LATE, THIRD_LATE_SEED, THIRD_LATE_DRAWS, 3, seen, late=True)


if __name__ == "__main__":
    sys.exit(main())
