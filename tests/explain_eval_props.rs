//! Random programs over issue 10's constructs never panic: every statement either runs or
//! stops the program with a typed error (the report is always produced).

use proptest::prelude::*;

/// Statement templates; `{a}`/`{b}` are tensor names, `{n}` a small int, `{d}` a dim.
const TEMPLATES: &[&str] = &[
    "{a} = torch.arange({n}.).view(-1, 1) + torch.arange({n})",
    "{a} = torch.ones({n}, {n}, dtype=torch.int8) * {b}",
    "{a} = {b} + {b}.t()",
    "{a} = {b} / {n} // 2 % 3",
    "{a} = {b} ** 2 - {b}",
    "{a} = ({b} > {n}) & ({b} < 4)",
    "{a} = torch.where({b} > 1, {b}, -{n})",
    "{a} = {b}.clamp(0, {n})",
    "{a} = {b}[[0, -1]]",
    "{a} = {b}[{b} > 0]",
    "{b}[[0]] = {n}",
    "{b}[{b} > 2] = 0",
    "{a} = {b}.repeat({n}, 1)",
    "{a} = torch.cat([{b}, {b}], {d})",
    "{a} = torch.stack([{b}, {b}], {d})",
    "{a} = {b}.flip({d})",
    "{a} = {b}.roll({n}, {d})",
    "{a} = {b}.sum({d}, keepdim=True)",
    "{a} = {b}.amax()",
    "{a} = {b}.mean()",
    "{a} = torch.zeros_like({b}, memory_format=torch.channels_last)",
    "{a} = {b}.new_full(({n},), {n})",
    "{b}.add_({a})",
    "{b}.mul_({a}, )",
    "{b}.gt_({n})",
    "{b}.masked_fill_({b} > 1, {n})",
    "{b}.unfold(0, 2, 1).add_(1)",
    "{b}.as_strided(({n}, 2), (1, 1)).copy_({a})",
    "assert {b}.shape == {a}.shape, {b}.shape",
    "print({b}, {b}.stride(), {b}._base is None)",
    "{a}, {b} = {b}, {a}",
    "{a} = {b}.untyped_storage().data_ptr() == {a}.data_ptr()",
    "{a} = {b}.tolist()",
    "{a} = torch.tensor({b}.tolist())",
    "del {a}",
];

fn program() -> impl Strategy<Value = String> {
    let stmt = (
        0..TEMPLATES.len(),
        prop::sample::select(vec!["x", "y", "z"]),
        prop::sample::select(vec!["x", "y", "z"]),
        0i64..4,
        -2i64..3,
    )
        .prop_map(|(t, a, b, n, d)| {
            TEMPLATES[t]
                .replace("{a}", a)
                .replace("{b}", b)
                .replace("{n}", &n.to_string())
                .replace("{d}", &d.to_string())
        });
    prop::collection::vec(stmt, 1..8).prop_map(|stmts| {
        let mut p = String::from(
            "x = torch.arange(6.).view(2, 3)\ny = torch.ones(2, 3)\nz = x.t().contiguous().t()\n",
        );
        for s in stmts {
            p.push_str(&s);
            p.push('\n');
        }
        p
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn random_programs_never_panic(src in program()) {
        let report = stridekit::explain::run_to_json(&src);
        let kind = report["error"]["kind"].as_str().unwrap_or("");
        prop_assert!(report["error"].is_null() || !kind.is_empty(), "{src}\n{report}");
        prop_assert!(report["steps"].is_array());
    }
}
