"""Instruction costs of the A5 chip (Ascend950), as data with their source.

``MEASURED_CSV`` is PTO-ISA's A5 cost-model table, copied unchanged from ``hw-native-sys/pto-isa``
(HEAD 3186c381, 2026-08-21; a copy with its description lives in ``/work/shared/reference/pto-isa-costmodel/``):
figures fitted by PTO-ISA to hardware profiling of single PTO instructions on a 950 board. A tile op runs as
one vector-function launch: ``linear`` (1-D path, a contiguous tile) ``param0 * loops + param1``;
``nested_loop`` (2-D path, rows looped) ``(param0 * inner + param1) * outer + param2``; ``loops`` / ``inner``
count 256-byte repeats, ``outer`` rows.

Everything else here is a rule built on that table (``tilefold.targets.costs`` applies them; docs/backend.md
lists them).
"""

from __future__ import annotations

MEASURED_CSV = """\
op,src_dtype,dst_dtype,shape_path,vf_impl_kind,tail_kind,op_params,formula_kind,param0,param1,param2,param3
TADD,fp16,none,1D,NO_POST_UPDATE,full,,linear,1.2469671,55.073657,0,0
TADD,fp16,none,1D,NO_POST_UPDATE,tail,,linear,1.2469671,55.073657,0,0
TADD,fp16,none,1D,POST_UPDATE,full,,linear,1.2469671,55.073657,0,0
TADD,fp16,none,1D,POST_UPDATE,tail,,linear,1.2469671,55.073657,0,0
TADD,fp16,none,2D,NO_POST_UPDATE,full,,nested_loop,1.8749443,2.8762808,44.344619,0
TADD,fp16,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.8749443,2.8762808,44.344619,0
TADD,fp16,none,2D,POST_UPDATE,full,,nested_loop,1.8749443,2.8762808,44.344619,0
TADD,fp16,none,2D,POST_UPDATE,tail,,nested_loop,1.8749443,2.8762808,44.344619,0
TADD,fp32,none,1D,NO_POST_UPDATE,full,,linear,1.2469671,55.073657,0,0
TADD,fp32,none,1D,NO_POST_UPDATE,tail,,linear,1.2469671,55.073657,0,0
TADD,fp32,none,1D,POST_UPDATE,full,,linear,1.2469671,55.073657,0,0
TADD,fp32,none,1D,POST_UPDATE,tail,,linear,1.2469671,55.073657,0,0
TADD,fp32,none,2D,NO_POST_UPDATE,full,,nested_loop,1.8749443,2.8762808,44.344619,0
TADD,fp32,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.8749443,2.8762808,44.344619,0
TADD,fp32,none,2D,POST_UPDATE,full,,nested_loop,1.8749443,2.8762808,44.344619,0
TADD,fp32,none,2D,POST_UPDATE,tail,,nested_loop,1.8749443,2.8762808,44.344619,0
TDIVS,fp16,none,1D,NO_POST_UPDATE,full,,linear,3.5491803,68.737705,0,0
TDIVS,fp16,none,1D,NO_POST_UPDATE,tail,,linear,3.5491803,68.737705,0,0
TDIVS,fp16,none,1D,POST_UPDATE,full,,linear,3.5491803,68.737705,0,0
TDIVS,fp16,none,1D,POST_UPDATE,tail,,linear,3.5491803,68.737705,0,0
TDIVS,fp16,none,2D,NO_POST_UPDATE,full,,nested_loop,3.9981682,-0.12080507,65.159204,0
TDIVS,fp16,none,2D,NO_POST_UPDATE,tail,,nested_loop,3.9981682,-0.12080507,65.159204,0
TDIVS,fp16,none,2D,POST_UPDATE,full,,nested_loop,3.9981682,-0.12080507,65.159204,0
TDIVS,fp16,none,2D,POST_UPDATE,tail,,nested_loop,3.9981682,-0.12080507,65.159204,0
TDIVS,fp32,none,1D,NO_POST_UPDATE,full,,linear,1.9081456,64.516464,0,0
TDIVS,fp32,none,1D,NO_POST_UPDATE,tail,,linear,1.9081456,64.516464,0,0
TDIVS,fp32,none,1D,POST_UPDATE,full,,linear,1.9081456,64.516464,0,0
TDIVS,fp32,none,1D,POST_UPDATE,tail,,linear,1.9081456,64.516464,0,0
TDIVS,fp32,none,2D,NO_POST_UPDATE,full,,nested_loop,1.8688724,2.4753589,62.942563,0
TDIVS,fp32,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.8688724,2.4753589,62.942563,0
TDIVS,fp32,none,2D,POST_UPDATE,full,,nested_loop,1.8688724,2.4753589,62.942563,0
TDIVS,fp32,none,2D,POST_UPDATE,tail,,nested_loop,1.8688724,2.4753589,62.942563,0
TEXP,fp16,none,1D,NO_POST_UPDATE,full,,linear,3.7622951,65.934426,0,0
TEXP,fp16,none,1D,NO_POST_UPDATE,tail,,linear,3.7622951,65.934426,0,0
TEXP,fp16,none,1D,POST_UPDATE,full,,linear,3.7622951,65.934426,0,0
TEXP,fp16,none,1D,POST_UPDATE,tail,,linear,3.7622951,65.934426,0,0
TEXP,fp16,none,2D,NO_POST_UPDATE,full,,nested_loop,3.9981682,-0.12080507,64.159204,0
TEXP,fp16,none,2D,NO_POST_UPDATE,tail,,nested_loop,3.9981682,-0.12080507,64.159204,0
TEXP,fp16,none,2D,POST_UPDATE,full,,nested_loop,3.9981682,-0.12080507,64.159204,0
TEXP,fp16,none,2D,POST_UPDATE,tail,,nested_loop,3.9981682,-0.12080507,64.159204,0
TEXP,fp32,none,1D,NO_POST_UPDATE,full,,linear,1.9670711,62.656846,0,0
TEXP,fp32,none,1D,NO_POST_UPDATE,tail,,linear,1.9670711,62.656846,0,0
TEXP,fp32,none,1D,POST_UPDATE,full,,linear,1.9670711,62.656846,0,0
TEXP,fp32,none,1D,POST_UPDATE,tail,,linear,1.9670711,62.656846,0,0
TEXP,fp32,none,2D,NO_POST_UPDATE,full,,nested_loop,1.8548854,2.5442386,60.598247,0
TEXP,fp32,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.8548854,2.5442386,60.598247,0
TEXP,fp32,none,2D,POST_UPDATE,full,,nested_loop,1.8548854,2.5442386,60.598247,0
TEXP,fp32,none,2D,POST_UPDATE,tail,,nested_loop,1.8548854,2.5442386,60.598247,0
TMINS,fp16,none,1D,NO_POST_UPDATE,full,,linear,1.0589255,53.140381,0,0
TMINS,fp16,none,1D,NO_POST_UPDATE,tail,,linear,1.0589255,53.140381,0,0
TMINS,fp16,none,1D,POST_UPDATE,full,,linear,1.0589255,53.140381,0,0
TMINS,fp16,none,1D,POST_UPDATE,tail,,linear,1.0589255,53.140381,0,0
TMINS,fp16,none,2D,NO_POST_UPDATE,full,,nested_loop,1.1016757,4.5314383,49.627872,0
TMINS,fp16,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.1016757,4.5314383,49.627872,0
TMINS,fp16,none,2D,POST_UPDATE,full,,nested_loop,1.1016757,4.5314383,49.627872,0
TMINS,fp16,none,2D,POST_UPDATE,tail,,nested_loop,1.1016757,4.5314383,49.627872,0
TMINS,fp32,none,1D,NO_POST_UPDATE,full,,linear,1.0589255,53.140381,0,0
TMINS,fp32,none,1D,NO_POST_UPDATE,tail,,linear,1.0589255,53.140381,0,0
TMINS,fp32,none,1D,POST_UPDATE,full,,linear,1.0589255,53.140381,0,0
TMINS,fp32,none,1D,POST_UPDATE,tail,,linear,1.0589255,53.140381,0,0
TMINS,fp32,none,2D,NO_POST_UPDATE,full,,nested_loop,1.1016757,4.5314383,49.627872,0
TMINS,fp32,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.1016757,4.5314383,49.627872,0
TMINS,fp32,none,2D,POST_UPDATE,full,,nested_loop,1.1016757,4.5314383,49.627872,0
TMINS,fp32,none,2D,POST_UPDATE,tail,,nested_loop,1.1016757,4.5314383,49.627872,0
TMUL,fp16,none,1D,NO_POST_UPDATE,full,,linear,1.1941075,56.285962,0,0
TMUL,fp16,none,1D,NO_POST_UPDATE,tail,,linear,1.1941075,56.285962,0,0
TMUL,fp16,none,1D,POST_UPDATE,full,,linear,1.1941075,56.285962,0,0
TMUL,fp16,none,1D,POST_UPDATE,tail,,linear,1.1941075,56.285962,0,0
TMUL,fp16,none,2D,NO_POST_UPDATE,full,,nested_loop,1.8708194,2.9123738,44.844619,0
TMUL,fp16,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.8708194,2.9123738,44.844619,0
TMUL,fp16,none,2D,POST_UPDATE,full,,nested_loop,1.8708194,2.9123738,44.844619,0
TMUL,fp16,none,2D,POST_UPDATE,tail,,nested_loop,1.8708194,2.9123738,44.844619,0
TMUL,fp32,none,1D,NO_POST_UPDATE,full,,linear,1.1941075,56.285962,0,0
TMUL,fp32,none,1D,NO_POST_UPDATE,tail,,linear,1.1941075,56.285962,0,0
TMUL,fp32,none,1D,POST_UPDATE,full,,linear,1.1941075,56.285962,0,0
TMUL,fp32,none,1D,POST_UPDATE,tail,,linear,1.1941075,56.285962,0,0
TMUL,fp32,none,2D,NO_POST_UPDATE,full,,nested_loop,1.8708194,2.9123738,44.844619,0
TMUL,fp32,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.8708194,2.9123738,44.844619,0
TMUL,fp32,none,2D,POST_UPDATE,full,,nested_loop,1.8708194,2.9123738,44.844619,0
TMUL,fp32,none,2D,POST_UPDATE,tail,,nested_loop,1.8708194,2.9123738,44.844619,0
TNEG,fp16,none,1D,NO_POST_UPDATE,full,,linear,1.0589255,55.140381,0,0
TNEG,fp16,none,1D,NO_POST_UPDATE,tail,,linear,1.0589255,55.140381,0,0
TNEG,fp16,none,1D,POST_UPDATE,full,,linear,1.0589255,55.140381,0,0
TNEG,fp16,none,1D,POST_UPDATE,tail,,linear,1.0589255,55.140381,0,0
TNEG,fp16,none,2D,NO_POST_UPDATE,full,,nested_loop,1.0952879,4.5652633,51.508464,0
TNEG,fp16,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.0952879,4.5652633,51.508464,0
TNEG,fp16,none,2D,POST_UPDATE,full,,nested_loop,1.0952879,4.5652633,51.508464,0
TNEG,fp16,none,2D,POST_UPDATE,tail,,nested_loop,1.0952879,4.5652633,51.508464,0
TNEG,fp32,none,1D,NO_POST_UPDATE,full,,linear,1.0589255,55.140381,0,0
TNEG,fp32,none,1D,NO_POST_UPDATE,tail,,linear,1.0589255,55.140381,0,0
TNEG,fp32,none,1D,POST_UPDATE,full,,linear,1.0589255,55.140381,0,0
TNEG,fp32,none,1D,POST_UPDATE,tail,,linear,1.0589255,55.140381,0,0
TNEG,fp32,none,2D,NO_POST_UPDATE,full,,nested_loop,1.0952879,4.5652633,51.508464,0
TNEG,fp32,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.0952879,4.5652633,51.508464,0
TNEG,fp32,none,2D,POST_UPDATE,full,,nested_loop,1.0952879,4.5652633,51.508464,0
TNEG,fp32,none,2D,POST_UPDATE,tail,,nested_loop,1.0952879,4.5652633,51.508464,0
TRECIP,fp16,none,1D,NO_POST_UPDATE,full,default,linear,3.5491803,68.737705,0,0
TRECIP,fp16,none,1D,NO_POST_UPDATE,full,high_precision,linear,168.14754,40.213115,0,0
TRECIP,fp16,none,1D,NO_POST_UPDATE,tail,default,linear,3.5491803,68.737705,0,0
TRECIP,fp16,none,1D,NO_POST_UPDATE,tail,high_precision,linear,168.14754,40.213115,0,0
TRECIP,fp16,none,1D,POST_UPDATE,full,default,linear,3.5491803,68.737705,0,0
TRECIP,fp16,none,1D,POST_UPDATE,full,high_precision,linear,168.14754,40.213115,0,0
TRECIP,fp16,none,1D,POST_UPDATE,tail,default,linear,3.5491803,68.737705,0,0
TRECIP,fp16,none,1D,POST_UPDATE,tail,high_precision,linear,168.14754,40.213115,0,0
TRECIP,fp16,none,2D,NO_POST_UPDATE,full,default,nested_loop,3.9981682,-0.12080507,65.159204,0
TRECIP,fp16,none,2D,NO_POST_UPDATE,full,high_precision,nested_loop,168.68263,1.5034374,56.228856,0
TRECIP,fp16,none,2D,NO_POST_UPDATE,tail,default,nested_loop,3.9981682,-0.12080507,65.159204,0
TRECIP,fp16,none,2D,NO_POST_UPDATE,tail,high_precision,nested_loop,168.68263,1.5034374,56.228856,0
TRECIP,fp16,none,2D,POST_UPDATE,full,default,nested_loop,3.9981682,-0.12080507,65.159204,0
TRECIP,fp16,none,2D,POST_UPDATE,full,high_precision,nested_loop,168.68263,1.5034374,56.228856,0
TRECIP,fp16,none,2D,POST_UPDATE,tail,default,nested_loop,3.9981682,-0.12080507,65.159204,0
TRECIP,fp16,none,2D,POST_UPDATE,tail,high_precision,nested_loop,168.68263,1.5034374,56.228856,0
TRECIP,fp32,none,1D,NO_POST_UPDATE,full,default,linear,1.9081456,64.516464,0,0
TRECIP,fp32,none,1D,NO_POST_UPDATE,full,high_precision,linear,345.21788,48.715084,0,0
TRECIP,fp32,none,1D,NO_POST_UPDATE,tail,default,linear,1.9081456,64.516464,0,0
TRECIP,fp32,none,1D,NO_POST_UPDATE,tail,high_precision,linear,345.21788,48.715084,0,0
TRECIP,fp32,none,1D,POST_UPDATE,full,default,linear,1.9081456,64.516464,0,0
TRECIP,fp32,none,1D,POST_UPDATE,full,high_precision,linear,345.21788,48.715084,0,0
TRECIP,fp32,none,1D,POST_UPDATE,tail,default,linear,1.9081456,64.516464,0,0
TRECIP,fp32,none,1D,POST_UPDATE,tail,high_precision,linear,345.21788,48.715084,0,0
TRECIP,fp32,none,2D,NO_POST_UPDATE,full,default,nested_loop,1.8688724,2.4753589,62.942563,0
TRECIP,fp32,none,2D,NO_POST_UPDATE,full,high_precision,nested_loop,346.5007,0.0052786834,38.900585,0
TRECIP,fp32,none,2D,NO_POST_UPDATE,tail,default,nested_loop,1.8688724,2.4753589,62.942563,0
TRECIP,fp32,none,2D,NO_POST_UPDATE,tail,high_precision,nested_loop,346.5007,0.0052786834,38.900585,0
TRECIP,fp32,none,2D,POST_UPDATE,full,default,nested_loop,1.8688724,2.4753589,62.942563,0
TRECIP,fp32,none,2D,POST_UPDATE,full,high_precision,nested_loop,346.5007,0.0052786834,38.900585,0
TRECIP,fp32,none,2D,POST_UPDATE,tail,default,nested_loop,1.8688724,2.4753589,62.942563,0
TRECIP,fp32,none,2D,POST_UPDATE,tail,high_precision,nested_loop,346.5007,0.0052786834,38.900585,0
TRSQRT,fp16,none,1D,NO_POST_UPDATE,full,,linear,8.1065574,81.098361,0,0
TRSQRT,fp16,none,1D,NO_POST_UPDATE,tail,,linear,8.1065574,81.098361,0,0
TRSQRT,fp16,none,1D,POST_UPDATE,full,,linear,8.1065574,81.098361,0,0
TRSQRT,fp16,none,1D,POST_UPDATE,tail,,linear,8.1065574,81.098361,0,0
TRSQRT,fp16,none,2D,NO_POST_UPDATE,full,,nested_loop,8.011194,0.05721393,80.711443,0
TRSQRT,fp16,none,2D,NO_POST_UPDATE,tail,,nested_loop,8.011194,0.05721393,80.711443,0
TRSQRT,fp16,none,2D,POST_UPDATE,full,,nested_loop,8.011194,0.05721393,80.711443,0
TRSQRT,fp16,none,2D,POST_UPDATE,tail,,nested_loop,8.011194,0.05721393,80.711443,0
TRSQRT,fp32,none,1D,NO_POST_UPDATE,full,,linear,4.0294627,75.570191,0,0
TRSQRT,fp32,none,1D,NO_POST_UPDATE,tail,,linear,4.0294627,75.570191,0,0
TRSQRT,fp32,none,1D,POST_UPDATE,full,,linear,4.0294627,75.570191,0,0
TRSQRT,fp32,none,1D,POST_UPDATE,tail,,linear,4.0294627,75.570191,0,0
TRSQRT,fp32,none,2D,NO_POST_UPDATE,full,,nested_loop,4,0.032648126,76.464329,0
TRSQRT,fp32,none,2D,NO_POST_UPDATE,tail,,nested_loop,4,0.032648126,76.464329,0
TRSQRT,fp32,none,2D,POST_UPDATE,full,,nested_loop,4,0.032648126,76.464329,0
TRSQRT,fp32,none,2D,POST_UPDATE,tail,,nested_loop,4,0.032648126,76.464329,0
TSEL,fp16,none,1D,NO_POST_UPDATE,full,TSel_b16_8,linear,2.0983607,52.47541,0,0
TSEL,fp16,none,1D,NO_POST_UPDATE,tail,TSel_b16_8,linear,2.0983607,52.47541,0,0
TSEL,fp16,none,2D,DEFAULT,full,TSel_b16_8,nested_loop,2.4617368,1.427318,48.616915,0
TSEL,fp16,none,2D,DEFAULT,tail,TSel_b16_8,nested_loop,2.4617368,1.427318,48.616915,0
TSEL,int8,none,1D,NO_POST_UPDATE,full,TSel_b16_8,linear,2.0983607,52.47541,0,0
TSEL,int8,none,1D,NO_POST_UPDATE,tail,TSel_b16_8,linear,2.0983607,52.47541,0,0
TSEL,int8,none,2D,DEFAULT,full,TSel_b16_8,nested_loop,2.4617368,1.427318,48.616915,0
TSEL,int8,none,2D,DEFAULT,tail,TSel_b16_8,nested_loop,2.4617368,1.427318,48.616915,0
TSEL,fp32,none,1D,NO_POST_UPDATE,full,TSel_b32_even,linear,1.9336735,58.846939,0,0
TSEL,fp32,none,1D,NO_POST_UPDATE,full,TSel_b32_odd,linear,3.9142857,63.885714,0,0
TSEL,fp32,none,1D,NO_POST_UPDATE,tail,TSel_b32_even,linear,1.9336735,58.846939,0,0
TSEL,fp32,none,1D,NO_POST_UPDATE,tail,TSel_b32_odd,linear,3.9142857,63.885714,0,0
TSEL,fp32,none,2D,DEFAULT,full,TSel_b32,nested_loop,3.0869132,36.109522,22.512394,0
TSEL,fp32,none,2D,DEFAULT,tail,TSel_b32,nested_loop,3.0869132,36.109522,22.512394,0
TSQRT,fp16,none,1D,NO_POST_UPDATE,full,,linear,3.7622951,66.934426,0,0
TSQRT,fp16,none,1D,NO_POST_UPDATE,tail,,linear,3.7622951,66.934426,0,0
TSQRT,fp16,none,1D,POST_UPDATE,full,,linear,3.7622951,66.934426,0,0
TSQRT,fp16,none,1D,POST_UPDATE,tail,,linear,3.7622951,66.934426,0,0
TSQRT,fp16,none,2D,NO_POST_UPDATE,full,,nested_loop,3.9981682,-0.12080507,65.159204,0
TSQRT,fp16,none,2D,NO_POST_UPDATE,tail,,nested_loop,3.9981682,-0.12080507,65.159204,0
TSQRT,fp16,none,2D,POST_UPDATE,full,,nested_loop,3.9981682,-0.12080507,65.159204,0
TSQRT,fp16,none,2D,POST_UPDATE,tail,,nested_loop,3.9981682,-0.12080507,65.159204,0
TSQRT,fp32,none,1D,NO_POST_UPDATE,full,,linear,1.9670711,63.656846,0,0
TSQRT,fp32,none,1D,NO_POST_UPDATE,tail,,linear,1.9670711,63.656846,0,0
TSQRT,fp32,none,1D,POST_UPDATE,full,,linear,1.9670711,63.656846,0,0
TSQRT,fp32,none,1D,POST_UPDATE,tail,,linear,1.9670711,63.656846,0,0
TSQRT,fp32,none,2D,NO_POST_UPDATE,full,,nested_loop,1.8548854,2.5442386,61.598247,0
TSQRT,fp32,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.8548854,2.5442386,61.598247,0
TSQRT,fp32,none,2D,POST_UPDATE,full,,nested_loop,1.8548854,2.5442386,61.598247,0
TSQRT,fp32,none,2D,POST_UPDATE,tail,,nested_loop,1.8548854,2.5442386,61.598247,0
TSUB,fp16,none,1D,NO_POST_UPDATE,full,,linear,1.2469671,55.073657,0,0
TSUB,fp16,none,1D,NO_POST_UPDATE,tail,,linear,1.2469671,55.073657,0,0
TSUB,fp16,none,1D,POST_UPDATE,full,,linear,1.2469671,55.073657,0,0
TSUB,fp16,none,1D,POST_UPDATE,tail,,linear,1.2469671,55.073657,0,0
TSUB,fp16,none,2D,NO_POST_UPDATE,full,,nested_loop,1.8749443,2.8762808,44.344619,0
TSUB,fp16,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.8749443,2.8762808,44.344619,0
TSUB,fp16,none,2D,POST_UPDATE,full,,nested_loop,1.8749443,2.8762808,44.344619,0
TSUB,fp16,none,2D,POST_UPDATE,tail,,nested_loop,1.8749443,2.8762808,44.344619,0
TSUB,fp32,none,1D,NO_POST_UPDATE,full,,linear,1.2469671,55.073657,0,0
TSUB,fp32,none,1D,NO_POST_UPDATE,tail,,linear,1.2469671,55.073657,0,0
TSUB,fp32,none,1D,POST_UPDATE,full,,linear,1.2469671,55.073657,0,0
TSUB,fp32,none,1D,POST_UPDATE,tail,,linear,1.2469671,55.073657,0,0
TSUB,fp32,none,2D,NO_POST_UPDATE,full,,nested_loop,1.8749443,2.8762808,44.344619,0
TSUB,fp32,none,2D,NO_POST_UPDATE,tail,,nested_loop,1.8749443,2.8762808,44.344619,0
TSUB,fp32,none,2D,POST_UPDATE,full,,nested_loop,1.8749443,2.8762808,44.344619,0
TSUB,fp32,none,2D,POST_UPDATE,tail,,nested_loop,1.8749443,2.8762808,44.344619,0
TCVT,bf16,fp16,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,1.2131148,53.196721,0,0
TCVT,bf16,fp16,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,1.2131148,53.196721,0,0
TCVT,bf16,fp16,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,1.279308,1.8333786,51.80597,0
TCVT,bf16,fp16,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,1.279308,1.8333786,51.80597,0
TCVT,bf16,fp32,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,-1.7704918,82.442623,0,0
TCVT,bf16,fp32,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,-1.7704918,82.442623,0,0
TCVT,bf16,fp32,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,1.2703528,1.929896,51.661692,0
TCVT,bf16,fp32,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,1.2703528,1.929896,51.661692,0
TCVT,fp16,fp32,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,-1.7704918,82.442623,0,0
TCVT,fp16,fp32,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,-1.7704918,82.442623,0,0
TCVT,fp16,fp32,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,1.2703528,1.929896,51.661692,0
TCVT,fp16,fp32,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,1.2703528,1.929896,51.661692,0
TCVT,fp32,bf16,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,1.3196721,52.295082,0,0
TCVT,fp32,bf16,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,1.3196721,52.295082,0,0
TCVT,fp32,bf16,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,2.2580054,1.0422433,55.18408,0
TCVT,fp32,bf16,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,2.2580054,1.0422433,55.18408,0
TCVT,fp32,fp16,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,1.3196721,52.295082,0,0
TCVT,fp32,fp16,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,1.3196721,52.295082,0,0
TCVT,fp32,fp16,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,2.2580054,1.0422433,55.18408,0
TCVT,fp32,fp16,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,2.2580054,1.0422433,55.18408,0
TCVT,fp16,hif8,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,1.3196721,53.295082,0,0
TCVT,fp16,hif8,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,1.3196721,53.295082,0,0
TCVT,fp16,hif8,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,1.2897558,1.7846223,52.472637,0
TCVT,fp16,hif8,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,1.2897558,1.7846223,52.472637,0
TCVT,fp32,fp8_e4m3,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,12.319672,55.295082,0,0
TCVT,fp32,fp8_e4m3,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,12.319672,55.295082,0,0
TCVT,fp32,fp8_e4m3,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,87.638195,-30.013071,7.6069652,0
TCVT,fp32,fp8_e4m3,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,87.638195,-30.013071,7.6069652,0
TCVT,fp32,fp8_e5m2,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,12.319672,55.295082,0,0
TCVT,fp32,fp8_e5m2,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,12.319672,55.295082,0,0
TCVT,fp32,fp8_e5m2,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,87.638195,-30.013071,7.6069652,0
TCVT,fp32,fp8_e5m2,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,87.638195,-30.013071,7.6069652,0
TCVT,fp32,hif8,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,12.319672,55.295082,0,0
TCVT,fp32,hif8,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,12.319672,55.295082,0,0
TCVT,fp32,hif8,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,87.638195,-30.013071,7.6069652,0
TCVT,fp32,hif8,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,87.638195,-30.013071,7.6069652,0
TCVT,fp8_e4m3,fp32,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,3.9344262,81.016393,0,0
TCVT,fp8_e4m3,fp32,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,3.9344262,81.016393,0,0
TCVT,fp8_e4m3,fp32,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,5.1631615,-1.7589326,69.099502,0
TCVT,fp8_e4m3,fp32,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,5.1631615,-1.7589326,69.099502,0
TCVT,fp8_e5m2,fp32,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,3.9344262,81.016393,0,0
TCVT,fp8_e5m2,fp32,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,3.9344262,81.016393,0,0
TCVT,fp8_e5m2,fp32,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,5.1631615,-1.7589326,69.099502,0
TCVT,fp8_e5m2,fp32,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,5.1631615,-1.7589326,69.099502,0
TCVT,hif8,fp32,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,3.9344262,81.016393,0,0
TCVT,hif8,fp32,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,3.9344262,81.016393,0,0
TCVT,hif8,fp32,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,5.1631615,-1.7589326,69.099502,0
TCVT,hif8,fp32,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,5.1631615,-1.7589326,69.099502,0
TCVT,bf16,fp4_e1m2,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,12.42623,55.393443,0,0
TCVT,bf16,fp4_e1m2,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,12.42623,55.393443,0,0
TCVT,bf16,fp4_e1m2,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,87.72924,-29.743917,7.0348259,0
TCVT,bf16,fp4_e1m2,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,87.72924,-29.743917,7.0348259,0
TCVT,bf16,fp4_e2m1,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,12.42623,55.393443,0,0
TCVT,bf16,fp4_e2m1,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,12.42623,55.393443,0,0
TCVT,bf16,fp4_e2m1,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,87.72924,-29.743917,7.0348259,0
TCVT,bf16,fp4_e2m1,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,87.72924,-29.743917,7.0348259,0
TCVT,fp4_e1m2,bf16,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,0.89344262,89.901639,0,0
TCVT,fp4_e1m2,bf16,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,0.89344262,89.901639,0,0
TCVT,fp4_e1m2,bf16,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,3.2957259,1.9433288,61.60199,0
TCVT,fp4_e1m2,bf16,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,3.2957259,1.9433288,61.60199,0
TCVT,fp4_e2m1,bf16,1D,NO_POST_UPDATE,full,CAST_RINT_SAT_ON_normal,linear,0.89344262,89.901639,0,0
TCVT,fp4_e2m1,bf16,1D,NO_POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,linear,0.89344262,89.901639,0,0
TCVT,fp4_e2m1,bf16,2D,POST_UPDATE,full,CAST_RINT_SAT_ON_normal,nested_loop,3.2957259,1.9433288,61.60199,0
TCVT,fp4_e2m1,bf16,2D,POST_UPDATE,tail,CAST_RINT_SAT_ON_normal,nested_loop,3.2957259,1.9433288,61.60199,0
"""

# --- rules for what the table does not list (each priced like its nearest measured family) -----------------

#: op -> the measured families it is priced like (summed). A family "a2a3:OP" is A2/A3's fitted family of OP
#: (no A5 measurement of that class exists) with its start-up replaced by A5's (``A2A3_FAMILY_STARTUP``) and A5's
#: per-row loop cost added (``A2A3_FAMILY_PER_ROW``).
EXTRAPOLATED_OPS: dict[str, tuple[tuple[str, ...], str]] = {
    **{op: (("TADD",), "binary element-wise, priced like TADD") for op in (
        "TMAXIMUM", "TMINIMUM", "TAND", "TOR", "TXOR", "TSHL", "TSHR", "TCMP", "TPRELU", "TADDC", "TSUBC",
        "TADDSC", "TSUBSC", "TPARTADD", "TPARTMAX", "TPARTMIN")},
    **{op: (("TMUL",), "binary multiply-class, priced like TMUL") for op in ("TPARTMUL",)},
    "TSELS": (("TSEL",), "select, priced like TSEL"),
    **{op: (("TDIVS",), "division-class, priced like TDIVS") for op in ("TDIV", "TREM", "TFMOD", "TREMS", "TFMODS")},
    **{op: (("TMINS",), "tile-scalar one pass, priced like TMINS") for op in (
        "TADDS", "TSUBS", "TMULS", "TMAXS", "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS", "TCMPS", "TEXPANDS",
        "TLRELU", "TFILLPAD", "TCOLEXPAND")},
    **{op: (("TNEG",), "unary one pass, priced like TNEG") for op in ("TABS", "TRELU", "TNOT")},
    # concat / assemble copy each element of their operands once inside UB: one pass over the result
    **{op: (("TNEG",), "a one-pass copy inside UB, priced like TNEG") for op in ("TCONCAT", "TASSEMBLE")},
    **{op: (("TEXP",), "transcendental, priced like TEXP") for op in ("TLOG", "TSIN", "TCOS")},
    # no A5 profiling of reductions / broadcasts: A2/A3's measured family, A5's start-up
    "TROWSUM": (("a2a3:TROWSUM",), "row reduction: A2/A3's TROWSUM with A5's start-up"),
    **{op: (("a2a3:TROWMAX",), "row reduction: A2/A3's TROWMAX with A5's start-up") for op in (
        "TROWMAX", "TROWMIN", "TROWPROD", "TROWARGMAX", "TROWARGMIN")},
    "TCOLSUM": (("a2a3:TCOLSUM",), "column reduction: A2/A3's TCOLSUM with A5's start-up"),
    **{op: (("a2a3:TCOLMAX",), "column reduction: A2/A3's TCOLMAX with A5's start-up") for op in (
        "TCOLMAX", "TCOLMIN", "TCOLPROD", "TCOLARGMAX", "TCOLARGMIN", "TTRANS")},
    "TROWEXPAND": (("a2a3:TROWEXPAND",), "row broadcast: A2/A3's TROWEXPAND with A5's start-up"),
    **{op: (("a2a3:TROWEXPAND", fam), f"row broadcast then the binary op: A2/A3's TROWEXPAND + A5's {fam}")
       for op, fam in (("TROWEXPANDADD", "TADD"), ("TROWEXPANDSUB", "TSUB"), ("TROWEXPANDMUL", "TMUL"),
                       ("TROWEXPANDDIV", "TDIVS"), ("TROWEXPANDMAX", "TADD"), ("TROWEXPANDMIN", "TADD"))},
    "TROWEXPANDEXPDIF": (("a2a3:TROWEXPAND", "TSUB", "TEXP"), "row broadcast, subtract, exp"),
    **{op: ((fam,), f"column broadcast: a binary pass with one operand row reused, priced like {fam}")
       for op, fam in (("TCOLEXPANDADD", "TADD"), ("TCOLEXPANDSUB", "TSUB"), ("TCOLEXPANDMUL", "TMUL"),
                       ("TCOLEXPANDDIV", "TDIVS"), ("TCOLEXPANDMAX", "TADD"), ("TCOLEXPANDMIN", "TADD"))},
    "TCOLEXPANDEXPDIF": (("TSUB", "TEXP"), "column broadcast, subtract, exp: TSUB + TEXP"),
    # the index / generator ops of issue 19 (no profiling: the same rules as A2/A3, in A5's families)
    **{op: (("TMINS",), "one pass writing the result, priced like TMINS") for op in (
        "TCI", "TEXPANDCLONE", "TFILLPADEXPAND", "TTRI")},
    "TRANDOM": (("TMUL", "TMUL", "TMUL", "TMINS", "TMINS", "TMINS", "TMINS"),
                "the splitmix64 hash of a counter per element: 3 multiplies (TMUL) + 4 add / xor-shift passes (TMINS)"),
    "TSORT32": (("TSUB",) * 15 + ("TSEL",) * 15,
                "a bitonic network on 32 elements: 15 compare-exchange stages, each a compare (TSUB) and a TSEL"),
    # the scans / full sort of HIVM's vcumsum / vcumprod / vsort (tilefold.ops.scan_ops; no profiling): a scan is a
    # dependent add (multiply) per element along its axis, priced like A2/A3's per-element TROWEXPAND (A5's
    # start-up) plus the
    # pass writing the result; a full sort is the 32-element network plus one 4-way merge pass (exact for lines of
    # up to 128 elements; a longer line needs more merge passes than priced)
    "TCUMSUM": (("a2a3:TROWEXPAND", "TSUB"),
                "a dependent add per element along the axis (per-element family) and the add (TSUB)"),
    "TCUMPROD": (("a2a3:TROWEXPAND", "TMUL"),
                 "a dependent multiply per element along the axis (per-element family) and the multiply (TMUL)"),
    "TSORT": (("TSUB",) * 15 + ("TSEL",) * 15 + ("TSUB", "TSEL", "TSUB", "TSEL"),
              "a 32-element bitonic network (as TSORT32) and one 4-way merge pass (as TMRGSORT)"),
    "TMRGSORT": (("TSUB", "TSEL", "TSUB", "TSEL"), "a 4-way merge: two compare-select levels per output element"),
    **{op: (("a2a3:TROWEXPAND", "TMINS"), "one indexed element access per result element (A2/A3's per-element "
                                          "TROWEXPAND with A5's start-up) and one pass writing the result (TMINS)")
       for op in ("TGATHER", "TSCATTER")},
    "TGATHERB": (("TMINS",), "32-byte blocks by byte offset: one block-granular pass writing the result, priced "
                             "like TMINS"),
    "TSCATTERUPDATE": (("TMINS", "TMINS", "TMINS", "TMINS", "a2a3:TROWEXPAND", "TSUB", "TMINS", "a2a3:TROWEXPAND",
                        "TMINS", "TMINS", "TMINS", "a2a3:TROWEXPAND", "TMINS", "TMINS", "TSEL"),
                       "PyPTO's lowering of a whole-row update (ConvertTensorToTileOps page): tci, texpands, "
                       "tcolexpand, tmuls, trowexpandadd, texpands, tscatter, texpands x2, tscatter, tcmps, tsel"),
}

#: An op of a class A5's table does not measure (reductions, broadcasts, indexed access) is priced from A2/A3's
#: fitted family of it: ``A2A3_FAMILY_STARTUP + A2A3_FAMILY_PER_ROW * rows + scale * (A2/A3 work beyond its
#: start-up, without its masked passes)``, where ``scale`` is A5's per-repeat cost of an add over A2/A3's
#: (``A5Table.a2a3_scale``: A5's 2-D TADD ``param0`` over A2/A3's TSUB per-repeat term, 0.94-0.95). The masked
#: passes (a tail or narrow-row instruction) stay behind: A5's table prices a partial repeat like a full one.
#: The work keeps its A2/A3 structure (per row, per repeat, a reduction's growing tail); the launch and the
#: row loop are A5's. Checked on the ops measured on both targets (``benchmarks/cost_fidelity.py``, "A5 from
#: A2/A3"): the figures are printed there and in docs/backend.md.
#: A5's per-op start-up: TADD's 2-D fixed part (the VF launch of a nested loop; every A5 entry has 44-81)
A2A3_FAMILY_STARTUP = 44.344619
#: A5's per-row cost of the nested VF loop: TADD's 2-D ``param1`` (every 2-D A5 entry has one, 0-4.6 cycles per
#: row; A2/A3's element-wise families have none)
A2A3_FAMILY_PER_ROW = 2.8762808
#: (A5 op, A2/A3 op) whose per-repeat costs give the scale: the binary add on each target
A2A3_FAMILY_SCALE_OPS = ("TADD", "TSUB")

DTYPE_BY_ITEMSIZE: dict[int, str] = {4: "fp32", 2: "fp16", 1: "int8", 8: "fp32"}

SOURCE = "PTO-ISA A5 cost model (pto-isa 3186c381), fitted to single-instruction profiling on 950"
A2A3_FACTS = "PTO-ISA A2/A3 profiling facts (reference/pto-isa-costmodel/README.md), no A5 figure"

CUBE = {"startup": 6, "fractal_m": 16, "fractal_n": 16, "k_row_bytes": 32, "fp32_factor": 2,
        "origin": "extrapolated", "source": "A2/A3's measured cube formula (" + A2A3_FACTS + ")"}

#: scalar-pipe instructions priced by name: name -> (cycles, origin, source)
SCALAR_INSTRUCTIONS: dict[str, tuple[int, str, str]] = {
    "pipe_setup": (1, "assumed", "no measurement: reserve_buffer / import_peer_buffer / a*_initialize_pipe each write "
                   "a pipe's configuration registers once, priced as one scalar operation"),
}

PATHS: dict[tuple[str, str], tuple[float, float, str, str]] = {
    ("DDR", "Vec"): (128.0, 266.0, "extrapolated", "A2/A3's measured GM -> UB (" + A2A3_FACTS + ")"),
    ("DDR", "Mat"): (128.0, 266.0, "extrapolated", "A2/A3's measured GM -> UB (" + A2A3_FACTS + ")"),
    ("Vec", "DDR"): (128.0, 266.0, "extrapolated", "A2/A3's measured GM -> UB, mirrored"),
    ("Acc", "DDR"): (128.0, 266.0, "extrapolated", "A2/A3's measured GM -> UB, mirrored"),
    ("Vec", "Vec"): (32.0, 55.0, "extrapolated", "UB -> UB moves at A2/A3's 32 B per cycle, A5's one-pass "
                     "start-up (TADD 1-D fixed part)"),
    ("Mat", "Left"): (256.0, 24.0, "assumed", "no measurement: on-chip, several times the GM path"),
    ("Mat", "Right"): (256.0, 24.0, "assumed", "no measurement: on-chip, several times the GM path"),
    ("Mat", "Bias"): (64.0, 24.0, "assumed", "no measurement"),
    ("Mat", "Mat"): (128.0, 32.0, "assumed", "no measurement"),
    ("Acc", "Vec"): (128.0, 48.0, "assumed", "no measurement: 950's L0C -> UB path"),
}
