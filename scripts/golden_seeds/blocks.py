"""Blocks, functions and exceptions (issue 10, helper "lang"), seed 003's fences 1 and 2 whole.
"""

from .fences import fence

SEEDS: list[tuple[str, str]] = [
    # ---- issue 10 (helper "lang"): blocks, functions, exceptions -------------------------
    # The seed document 003's fences 1 and 2, whole and unchanged (tests/data/explain_fences/,
    # copied from ../shared/seeds/003_fe5dcb5181ab085b.txt lines 121-140 and 144-172).
    ("i10_fence1_address_formula_whole", fence("fence1.py")),
    ("i10_fence2_views_copies_whole", fence("fence2.py")),
    ("blk_readme_example_peak_in_loop",
     "def rows(t, k=1):\n    return t[k:]\n\nx = torch.zeros(1000)\nfor i in range(3):\n    tmp = x.clone()\n    v = rows(tmp, k=i)\ndel tmp, v\ntry:\n    x.view(3, 7)\nexcept RuntimeError as e:\n    print(\"caught:\", str(e))\n"),
    ("blk_for_steps_per_iteration",
     "x = torch.zeros(4)\nfor i in range(3):\n    y = x[i:]\n    y.add_(1)\nprint(x.tolist(), x._version)\n"),
    ("blk_for_over_tensor_and_size",
     "m = torch.arange(6.).view(2, 3)\nfor row in m:\n    row.mul_(2)\nfor i, s in enumerate(m.shape):\n    print(i, s)\nfor t in (m, m.t()):\n    print(t.stride(), t.is_contiguous())\n"),
    ("blk_nested_break_continue_else",
     "x = torch.arange(10)\nfound = []\nfor i in range(4):\n    if i == 1:\n        continue\n    for j in range(4):\n        if j > i:\n            break\n        found.append if False else None\n    else:\n        print('inner done', i)\nprint(found)\n"),
    ("blk_while_and_if_elif",
     "x = torch.ones(2, 2)\nn = 0\nwhile n < 5:\n    n = n + 1\n    if n % 3 == 0:\n        x.mul_(3)\n    elif n % 2 == 0:\n        x.add_(1)\n    else:\n        pass\nelse:\n    print('while else', n)\nprint(x.tolist())\n"),
    ("blk_def_defaults_recursion",
     "def addr(t, idx):\n    return t.storage_offset() + sum(i * s for i, s in zip(idx, t.stride()))\n\ndef fact(n, acc=1):\n    if n <= 1:\n        return acc\n    return fact(n - 1, acc * n)\n\nx = torch.arange(24).view(2, 3, 4)[1:, :, ::2]\nprint(addr(x, (0, 1, 1)), fact(6), fact(3, acc=2))\nv = x[0]\n"),
    ("blk_def_returns_view",
     "def rows(t, k=1):\n    r = t[k:]\n    return r.t()\n\nbase = torch.arange(12.).view(4, 3)\nv = rows(base)\nw = rows(base, k=2)\nv.zero_()\nprint(base.sum().item(), v._base is base)\n"),
    ("blk_try_except_classes",
     "x = torch.arange(6.).view(2, 3)\nfor stmt in range(5):\n    try:\n        if stmt == 0:\n            x.t().view(-1)\n        elif stmt == 1:\n            x.transpose(0, 5)\n        elif stmt == 2:\n            x[:, ::-1]\n        elif stmt == 3:\n            x[7]\n        else:\n            y = x + 1\n    except IndexError as e:\n        print('IndexError', str(e))\n    except ValueError as e:\n        print('ValueError', str(e))\n    except RuntimeError as e:\n        print('RuntimeError', 'view size is not compatible' in str(e))\n    else:\n        print('no error', y.shape)\n    finally:\n        print('finally', stmt)\n"),
    ("blk_try_raise_reraise",
     "x = torch.zeros(2)\ntry:\n    try:\n        x.view(3)\n    except RuntimeError:\n        print('inner')\n        raise\nexcept Exception as err:\n    print('outer', 'view' in str(err))\ntry:\n    raise ValueError('custom ' + str(x.numel()))\nexcept (TypeError, ValueError) as e:\n    print(repr(e), str(e))\n"),
    ("blk_uncaught_in_loop_line_col",
     "x = torch.arange(6)\nfor i in range(4):\n    y = x[i:]\n    z = y.view(2, 3)\n"),
    ("blk_uncaught_in_function_line_col",
     "def f(t):\n    a = t.t()\n    return a.view(-1)\n\nx = torch.arange(6.).view(2, 3)\nok = f(x[:1])\nbad = f(x)\n"),
    ("blk_uncaught_in_lambda_call",
     "x = torch.arange(6.).view(2, 3)\nflat = lambda t: t.view(-1)\nfor t in (x, x.t()):\n    f = flat(t)\n"),
    ("blk_raise_assertion",
     "x = torch.zeros(3)\ntry:\n    x.view(2)\n    raise AssertionError('view should fail')\nexcept RuntimeError as e:\n    assert 'invalid' in str(e)\nraise AssertionError('stop here ' + str(x.shape))\n"),
    ("blk_except_not_matching",
     "x = torch.zeros(3)\ntry:\n    x[5]\nexcept ValueError:\n    print('never')\n"),
    ("blk_dict_comprehensions",
     "x = torch.arange(12.).reshape(3, 4)\nviews = {'t': x.t(),\n         'row': x[1],\n         'col': x[:, 1]}\nfor name, v in views.items():\n    print(name, v.shape, v.stride(), v.storage_offset())\nstrides = [v.stride() for v in views.values() if v.dim() == 2]\nkeys = sorted(views.keys())\nsq = {k: len(k) for k in keys}\nprint(strides, keys, sq, list(range(2, 9, 3)), all(v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() for v in views.values()))\nrow = views['row']\n"),
    ("blk_long_loop_steps_omitted",
     "x = torch.zeros(3, dtype=torch.int64)\nfor i in range(130):\n    x.add_(1)\nbig = torch.zeros(1000)\nfor i in range(120):\n    t = big[i:]\nprint(x.tolist(), x._version)\n"),
    ("blk_generator_randint_indices",
     "g = torch.Generator().manual_seed(3)\nx = torch.arange(24).view(2, 3, 4)\nfor _ in range(5):\n    idx = tuple(int(torch.randint(0, d, (1,), generator=g)) for d in x.shape)\n    assert x[idx] == x.view(-1)[idx[0] * 12 + idx[1] * 4 + idx[2]], idx\nprint('ok')\n"),
]
