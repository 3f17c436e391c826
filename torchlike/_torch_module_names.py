"""The module names of torch 2.13.0 (2399), written by tools/torch_module_names.py from the
installed torch: the drop-in runner's finder imports a ``torch.*`` name only if torch has it (see ``_runner``).

Each line is a package, then its direct submodules
(every package has a line); an indented line continues the one above. ALIASES: names under which torch puts
another of its modules.
"""

TORCH_VERSION = "2.13.0"

ALIASES = {
    'torch.distributed._shard.checkpoint': 'torch.distributed.checkpoint',
    'torch.distributed._sharded_tensor': 'torch.distributed._shard.sharded_tensor',
    'torch.distributed._sharding_spec': 'torch.distributed._shard.sharding_spec',
    'torch.distributed._tensor._shards_wrapper': 'torch.distributed.tensor._shards_wrapper',
    'torch.distributed._tensor._utils': 'torch.distributed.tensor._utils',
    'torch.distributed._tensor.device_mesh': 'torch.distributed.tensor.device_mesh',
    'torch.distributed._tensor.experimental': 'torch.distributed.tensor.experimental',
}

TREE = """
torch: _C _VF __config__ __future__ _appdirs _awaits _classes _compile _custom_op _custom_ops _decomp _dispatch
  _dynamo _environment _export _functorch _guards _higher_order_ops _inductor _jit_internal _lazy _library
  _linalg_utils _lobpcg _logging _lowrank _meta_registrations _native _numpy _opaque_base _ops _prims
  _prims_common _python_dispatcher _refs _size_docs _sources _storage_docs _streambase _strobelight _subclasses
  _tensor _tensor_docs _tensor_iterator _tensor_str _thread_safe_fork _torch_docs _utils _utils_internal _vendor
  _vmap_internals _weights_only_unpickler accelerator amp ao autograd backends classes compiler contrib cpu cuda
  distributed distributions export fft func functional futures fx hub jit library linalg masked monitor mps mtia
  multiprocessing nativert nested nn numa onnx ops optim overrides package profiler quantization quasirandom
  random return_types serialization signal sparse special storage testing torch_version types utils version xpu
torch._C: _acc _aoti _autograd _cpu _distributed _distributed_autograd _distributed_c10d _distributed_rpc
  _distributed_rpc_testing _dynamo _export _fft _functionalization _functorch _instruction_counter _itt _jit
  _jit_tree_views _lazy _lazy_ts_backend _linalg _monitor _nativert _nested _nn _onnx _profiler _return_types
  _sparse _special _te _verbose cpp
torch._C._dynamo: autograd_compiler eval_frame guards utils
torch._C._export: pt2_archive_constants
torch._C.cpp: nn
torch._awaits:
torch._custom_op: autograd impl
torch._decomp: decompositions decompositions_for_jvp decompositions_for_rng
torch._dispatch: python
torch._dynamo: _trace_wrapped_higher_order_op aot_compile aot_compile_types backends bytecode_analysis
  bytecode_debugger bytecode_transformation cache_size callback code_context codegen compiled_autograd
  comprehension_graph_break comptime config convert_frame create_parameter_op current_scope_id
  dce_extra_outputs debug_utils decorators device_interface distributed dynamo_profiler eval_frame exc
  external_utils funcname_cache functional_export graph_break_hints graph_bytecode_inputs
  graph_deduplication graph_id_filter graph_region_tracker graph_utils guards hooks logging
  metrics_context mutation_guard output_graph package pgo polyfills precompile_context profiler
  replay_record repro resume_execution side_effects source symbolic_convert tensor_version_op test_case
  test_dont_skip_tracing_functions test_minifier_common testing trace_rules types utils variables
torch._dynamo.backends: common cudagraphs debugging distributed inductor onnxrt registry tensorrt torchxla tvm
torch._dynamo.polyfills: _collections builtins copy functools fx heapq itertools loader operator os pytree struct sys
  tensor torch_c_nn traceback
torch._dynamo.repro: after_aot after_dynamo aoti
torch._dynamo.variables: base builder builtin constant ctx_manager dicts distributed functions hashable
  higher_order_ops invoke_subgraph iter lazy lists misc nn_module object_protocol optimizer
  script_object sdpa sets streams tensor torch torch_function user_defined
torch._export: config converter db error non_strict_utils pass_base pass_infra passes serde tools utils verifier
  wrappers
torch._export.db: case examples gen_example logging
torch._export.db.examples: assume_constant_result autograd_function class_method cond_branch_class_method
  cond_branch_nested_function cond_branch_nonlocal_variables cond_closed_over_variable
  cond_operands cond_predicate constrain_as_size_example constrain_as_value_example decorator
  dictionary dynamic_shape_assert dynamic_shape_constructor dynamic_shape_if_guard
  dynamic_shape_map dynamic_shape_round dynamic_shape_slicing dynamic_shape_view
  fn_with_kwargs list_contains list_unpack model_attr_mutation nested_function
  null_context_manager optional_input pytree_flatten scalar_output specialized_attribute
  static_for_loop static_if tensor_setattr type_reflection_method unsupported_operator
  user_input_mutation
torch._export.pass_infra: node_metadata proxy_value
torch._export.passes: _node_metadata_hook add_runtime_assertions_for_constraints_pass collect_tracepoints_pass
  constant_folding functionalize_side_effectful_ops_pass insert_custom_op_guards
  lift_constants_pass remove_runtime_assertions replace_autocast_with_hop_pass
  replace_quantized_ops_with_standard_ops_pass replace_set_grad_with_hop_pass
  replace_view_ops_with_view_copy_ops_pass replace_with_hop_pass_util
torch._export.serde: dynamic_shapes schema schema_check serialize union
torch._functorch: _activation_checkpointing _activation_offloading _aot_autograd aot_autograd apis autograd_function
  batch_norm_replacement benchmark_utils compile_utils compilers config deprecated eager_transforms
  einops functional_call fx_minifier make_functional partitioners predispatch pyfunctorch python_key
  pytree_hacks top_operators_github_usage utils vmap
torch._functorch._activation_checkpointing: ac_logging_utils graph_info_provider knapsack knapsack_evaluator
  remat_using_tags_for_fwd_loss_bwd_graph_pass
torch._functorch._activation_offloading: activation_offloading offload_ops
torch._functorch._aot_autograd: aot_autograd_result autograd_cache collect_metadata_analysis complex_decomposition
  descriptors frontend_utils functional_utils fx_utils graph_capture
  graph_capture_wrappers graph_compile indexed_dict input_output_analysis logging_utils
  runtime_wrappers schemas streams subclass_codegen subclass_parametrization
  subclass_utils utils
torch._higher_order_ops: _invoke_quant aoti_call_delegate associative_scan auto_functionalize base_hop cond
  cudagraph_conditional_nodes effects executorch_call_delegate flat_apply flex_attention
  foreach_map hints_wrap inline_asm_elementwise invoke_leaf_function invoke_subgraph local_map
  map out_dtype partitioner passes print register_hook run_const_graph scan schema strict_mode
  torchbind triton_kernel_wrap utils while_loop wrap
torch._higher_order_ops.passes: inline_invoke_subgraph
torch._inductor: __autotune_main__ _functionalize_collectives analysis analyze_preserves_zero_mask aoti_eager
  async_compile augmented_graph_helper autoheuristic autotune_process await_utils bounds cache
  cache_key choices codecache codegen comm_analysis comm_lowering comms comms_debug compile_fx
  compile_fx_async compile_fx_ext compile_fx_subproc compile_worker compiler_bisector config
  config_comms constant_folding cpp_builder cpu_vec_isa cudagraph_trees cudagraph_utils
  custom_graph_pass debug decomposition dependencies distributed_autotune dtype_propagation exc
  extern_node_serializer freezing freezing_utils fuzzer fx_passes fx_utils graph hooks
  index_propagation inductor_prims invert_expr_analysis ir jagged_lowerings kernel kernel_inputs
  kernel_template_choice lookup_table loop_body lowering memory metrics mkldnn_ir mkldnn_lowerings
  mock_cache ops_handler optimize_indexing output_code package pattern_matcher quantized_lowerings
  remote_cache remote_gemm_autotune_cache rocm_multiarch_utils runtime scheduler select_algorithm
  shape_propagation sizevars standalone_compile stream_constants stream_utils subgraph_lowering
  template_heuristics test_case test_operators tiling_utils triton_bundler utils virtualized
  wrapper_benchmark
torch._inductor.analysis: device_info profile_analysis
torch._inductor.autoheuristic: artifacts autoheuristic autoheuristic_utils learned_heuristic_controller
  learnedheuristic_interface
torch._inductor.autoheuristic.artifacts: _MMRankingA100 _MMRankingH100 _MixedMMA100 _MixedMMH100 _PadMMA100 _PadMMH200
torch._inductor.codegen: aoti_hipify_utils block_analysis common cpp cpp_bmm_template cpp_flex_attention_template
  cpp_gemm_template cpp_grouped_gemm_template cpp_micro_gemm cpp_template cpp_template_kernel
  cpp_utils cpp_wrapper_cpu cpp_wrapper_cpu_array_ref cpp_wrapper_gpu cpp_wrapper_mps
  cpu_device_op_overrides cuda cuda_combined_scheduling custom_extern_kernel_codegen cutedsl
  cutlass debug_utils halide memory_planning metal_flex_attention_template mps
  mps_device_op_overrides mtia multi_kernel nv_universal_gemm pallas python_wrapper_mtia rocm
  segmented_tree simd simd_kernel_features subgraph triton triton_combo_kernel
  triton_split_scan triton_utils wrapper wrapper_fxir xpu
torch._inductor.codegen.cuda: compile_utils cuda_env device_op_overrides
torch._inductor.codegen.cutedsl: _cutedsl_utils cutedsl_kernel cutedsl_op_overrides cutedsl_scheduling
  cutedsl_template lane_analysis
torch._inductor.codegen.cutlass: cache gemm_template kernel lib_extensions python_evt scheduling serialization
  template utils
torch._inductor.codegen.cutlass.lib_extensions: cutlass_mock_imports evt_extensions gemm_operation_extensions
torch._inductor.codegen.cutlass.lib_extensions.cutlass_mock_imports: cuda pydot scipy
torch._inductor.codegen.cutlass.lib_extensions.cutlass_mock_imports.cuda: cuda cudart
torch._inductor.codegen.cutlass.lib_extensions.cutlass_mock_imports.pydot:
torch._inductor.codegen.cutlass.lib_extensions.cutlass_mock_imports.scipy: special
torch._inductor.codegen.mtia: device_op_overrides
torch._inductor.codegen.nv_universal_gemm: kernel_cache nv_universal_gemm nv_universal_gemm_kernel
  nv_universal_gemm_scheduling nv_universal_gemm_utils
torch._inductor.codegen.rocm: ck_conv_template ck_template ck_tile_template ck_tile_universal_gemm_template
  ck_universal_gemm_template compile_command rocm_benchmark_request rocm_cpp_scheduling
  rocm_kernel rocm_template rocm_template_buffer rocm_utils
torch._inductor.codegen.xpu: compile_utils device_op_overrides xpu_combined_scheduling xpu_env
torch._inductor.compile_worker: __main__ subproc_pool timer tracked_process_pool utils
torch._inductor.fx_passes: apply_gumbel_max_trick auto_chunker b2b_gemm binary_folding bucketing control_dependencies
  ddp_fusion decomp_comms decompose_mem_bound_mm dedupe_symint_uses efficient_conv_bn_eval
  freezing_patterns fsdp fuse_attention fusion_regions graph_view group_batch_fusion
  joint_graph low_contention_collectives memory_estimator micro_pipeline_tp misc_patterns
  mkldnn_fusion node_runtime_estimation numeric_utils overlap_manual_scheduling
  overlap_preserving_bucketer overlap_scheduling pad_mm post_grad pre_grad
  profile_guided_estimation quantization reduced_atomic_contention reinplace replace_random
  serialized_patterns split_cat spmd_check utils
torch._inductor.fx_passes.auto_chunker: applier common core propagate_scale_by propagator utils
torch._inductor.fx_passes.serialized_patterns: _sfdp_pattern_1 _sfdp_pattern_10 _sfdp_pattern_11 _sfdp_pattern_12
  _sfdp_pattern_13 _sfdp_pattern_14 _sfdp_pattern_15 _sfdp_pattern_16
  _sfdp_pattern_17 _sfdp_pattern_18 _sfdp_pattern_19 _sfdp_pattern_2
  _sfdp_pattern_20 _sfdp_pattern_21 _sfdp_pattern_22 _sfdp_pattern_23
  _sfdp_pattern_24 _sfdp_pattern_25 _sfdp_pattern_26 _sfdp_pattern_27
  _sfdp_pattern_28 _sfdp_pattern_29 _sfdp_pattern_3 _sfdp_pattern_30
  _sfdp_pattern_4 _sfdp_pattern_5 _sfdp_pattern_6 _sfdp_pattern_7
  _sfdp_pattern_8 _sfdp_pattern_9 addmm_pattern bmm_pattern mm_pattern
torch._inductor.kernel: bmm conv custom_op flex flex_gemm mm mm_common mm_grouped mm_plus_mm vendored_templates
torch._inductor.kernel.flex: aux_vectorization common flex_attention flex_cpu flex_decoding flex_flash_attention
  flex_mps interval_mask_packing
torch._inductor.kernel.flex_gemm: runtime
torch._inductor.kernel.vendored_templates: cutedsl
torch._inductor.kernel.vendored_templates.cutedsl: dense_blockscaled_gemm_persistent kernels wrappers
torch._inductor.kernel.vendored_templates.cutedsl.kernels: cutedsl_grouped_gemm
torch._inductor.kernel.vendored_templates.cutedsl.wrappers: dense_blockscaled_gemm_kernel
torch._inductor.lookup_table: choices
torch._inductor.package: build_package package
torch._inductor.runtime: autotune_cache benchmarking cache_dir_utils caching compile_tasks coordinate_descent_tuner
  cutedsl_cache debug_utils halide_helpers hints proton_utils runtime_utils
  static_triton_launcher triton_compat triton_helpers triton_heuristics triton_lazy_compile
torch._inductor.runtime.caching: config context encoders exceptions implementations interfaces locks memoizers utils
torch._inductor.template_heuristics: aten base contiguous_mm cutedsl decompose_k gemm nv_universal_gemm params
  registry tlx triton triton_addmm
torch._lazy: closure computation config debug device_context extract_compiled_graph ir_cache metrics
  tensor_factory_functions ts_backend
torch._library: _out_variant autograd custom_ops effects fake_class_registry fake_impl fake_profile infer_schema
  opaque_object simple_registry triton utils
torch._logging: _internal _registrations scribe structured
torch._native: common_utils cutedsl_utils dsl_registry ops registry triton_utils
torch._native.ops: bmm_outer_product foreach_mm norm scatter_add topk
torch._native.ops.bmm_outer_product: triton_impl triton_kernels
torch._native.ops.foreach_mm: impl nvmath_impl
torch._native.ops.norm: norms rmsnorm_impl
torch._native.ops.scatter_add: _ptx cutedsl_impl tma_kernel vec_scatter_kernel
torch._native.ops.topk: _common cutedsl_impl cutedsl_kernels
torch._numpy: _binary_ufuncs_impl _casting_dicts _dtypes _dtypes_impl _funcs _funcs_impl _getlimits _ndarray
  _normalizations _reductions_impl _ufuncs _unary_ufuncs_impl _util fft linalg random testing
torch._numpy.testing: utils
torch._prims: context debug_prims executor rng_prims
torch._prims_common: wrappers
torch._refs: _conversions fft linalg nn special
torch._refs.linalg:
torch._refs.nn: functional
torch._refs.nn.functional:
torch._refs.special:
torch._strobelight: cli_function_profiler compile_time_profiler
torch._subclasses: _fake_tensor_utils complex_tensor fake_impls fake_tensor fake_utils functional_tensor meta_utils
  schema_check_mode
torch._subclasses.complex_tensor: _core _ops
torch._subclasses.complex_tensor._ops: aten common prims
torch._vendor: packaging quack
torch._vendor.packaging: _structures version
torch._vendor.quack: _compile_payload _compile_worker activation autotuner bench blockscaled_gemm_utils cache
  compile_utils copy_utils cute_dsl_elf_fix cute_dsl_mlir_threading cute_dsl_utils epi_composable
  epi_ops epi_utils fast_math gemm_act gemm_base gemm_blockscaled_interface gemm_config
  gemm_default_epi gemm_sm100 gemm_sm120 gemm_sm80 gemm_sm90 gemm_tvm_ffi_utils layout_utils
  mx_utils pipeline reduce reduction_base rmsnorm rmsnorm_config rounding sm100_utils sm80_utils
  sm90_utils tile_scheduler trace utils varlen_utils
torch._vendor.quack.bench: bench_utils
torch._vendor.quack.cache: compile_only jit
torch.accelerator: _utils graphs memory
torch.amp: autocast_mode grad_scaler
torch.ao: nn ns pruning quantization
torch.ao.nn: intrinsic qat quantizable quantized sparse
torch.ao.nn.intrinsic: modules qat quantized
torch.ao.nn.intrinsic.modules: fused
torch.ao.nn.intrinsic.qat: modules
torch.ao.nn.intrinsic.qat.modules: conv_fused linear_fused linear_relu
torch.ao.nn.intrinsic.quantized: dynamic modules
torch.ao.nn.intrinsic.quantized.dynamic: modules
torch.ao.nn.intrinsic.quantized.dynamic.modules: linear_relu
torch.ao.nn.intrinsic.quantized.modules: bn_relu conv_add conv_relu linear_relu
torch.ao.nn.qat: dynamic modules
torch.ao.nn.qat.dynamic: modules
torch.ao.nn.qat.dynamic.modules: linear
torch.ao.nn.qat.modules: conv embedding_ops linear
torch.ao.nn.quantizable: modules
torch.ao.nn.quantizable.modules: activation rnn
torch.ao.nn.quantized: dynamic functional modules reference
torch.ao.nn.quantized.dynamic: modules
torch.ao.nn.quantized.dynamic.modules: conv linear rnn
torch.ao.nn.quantized.modules: activation batchnorm conv dropout embedding_ops functional_modules linear normalization
  rnn utils
torch.ao.nn.quantized.reference: modules
torch.ao.nn.quantized.reference.modules: conv linear rnn sparse utils
torch.ao.nn.sparse: quantized
torch.ao.nn.sparse.quantized: dynamic linear utils
torch.ao.nn.sparse.quantized.dynamic: linear
torch.ao.ns: _numeric_suite _numeric_suite_fx fx
torch.ao.ns.fx: graph_matcher graph_passes mappings n_shadows_utils ns_types pattern_utils qconfig_multi_mapping utils
  weight_utils
torch.ao.pruning: _experimental _mappings scheduler sparsifier
torch.ao.pruning._experimental: activation_sparsifier data_scheduler data_sparsifier pruner
torch.ao.pruning._experimental.activation_sparsifier: activation_sparsifier
torch.ao.pruning._experimental.data_scheduler: base_data_scheduler
torch.ao.pruning._experimental.data_sparsifier: base_data_sparsifier data_norm_sparsifier lightning quantization_utils
torch.ao.pruning._experimental.data_sparsifier.lightning: callbacks
torch.ao.pruning._experimental.data_sparsifier.lightning.callbacks: _data_sparstity_utils data_sparsity
torch.ao.pruning._experimental.pruner: FPGM_pruner base_structured_sparsifier lstm_saliency_pruner match_utils
  parametrization prune_functions saliency_pruner
torch.ao.pruning.scheduler: base_scheduler cubic_scheduler lambda_scheduler
torch.ao.pruning.sparsifier: base_sparsifier nearly_diagonal_sparsifier utils weight_norm_sparsifier
torch.ao.quantization: _correct_bias _equalize _learnable_fake_quantize backend_config fake_quantize fuse_modules
  fuser_method_mappings fx observer qconfig qconfig_mapping quant_type quantization_mappings
  quantize quantize_fx quantize_jit stubs utils
torch.ao.quantization.backend_config: _common_operator_config_utils _qnnpack_pt2e backend_config executorch fbgemm
  native onednn qnnpack tensorrt utils x86
torch.ao.quantization.fx: _decomposed _equalize _lower_to_native_backend _model_report convert custom_config fuse
  fuse_handler graph_module lower_to_fbgemm lower_to_qnnpack lstm_utils match_utils
  pattern_utils prepare qconfig_mapping_utils quantize_handler tracer utils
torch.ao.quantization.fx._model_report: detector model_report model_report_observer model_report_visualizer
torch.autograd: _functions anomaly_mode forward_ad function functional grad_mode gradcheck graph profiler
  profiler_legacy profiler_util variable
torch.autograd._functions: tensor utils
torch.backends: _coreml _nnapi cpu cuda cudnn cusparselt kleidiai mha miopen mkl mkldnn mps nnpack openmp opt_einsum
  python_native quantized xeon xnnpack
torch.backends._coreml: preprocess
torch.backends._nnapi: prepare serializer
torch.backends.cpu:
torch.backends.cuda:
torch.backends.cudnn: rnn
torch.backends.cusparselt:
torch.backends.kleidiai:
torch.backends.mha:
torch.backends.miopen:
torch.backends.mkl:
torch.backends.mkldnn:
torch.backends.mps:
torch.backends.nnpack:
torch.backends.openmp:
torch.backends.opt_einsum:
torch.backends.python_native:
torch.backends.quantized:
torch.backends.xeon: run_cpu
torch.backends.xnnpack:
torch.classes:
torch.compiler: _cache config
torch.contrib: _tensorboard_vis
torch.cpu: amp
torch.cpu.amp: autocast_mode grad_scaler
torch.cuda: _annotate_cuda_graph_trace _device_limits _gpu_trace _graph_annotations _memory_viz _pin_memory_utils
  _sanitizer _utils amp comm gds graphs green_contexts jiterator memory nccl nvtx profiler random sparse
  streams tunable
torch.cuda.amp: autocast_mode common grad_scaler
torch.distributed: _checkpointable _composable _composable_state _dist2 _functional_collectives
  _functional_collectives_impl _local_tensor _mesh_layout _meta_registrations _ops _pycute
  _serialization _shard _sharded_tensor _sharding_spec _state_dict_utils _symmetric_memory _tensor
  _tools algorithms argparse_util autograd c10d_logger checkpoint collective_utils config constants
  debug device_mesh distributed_c10d elastic flight_recorder fsdp launch launcher logging_handlers nn
  optim pipelining remote_device rendezvous rpc run tensor utils
torch.distributed._composable: checkpoint_activation contract fsdp replicate replicate_with_fsdp
torch.distributed._composable.fsdp: fully_shard
torch.distributed._local_tensor: _c10d
torch.distributed._ops: device_mesh
torch.distributed._pycute: int_tuple layout typing
torch.distributed._shard: _utils api checkpoint common_op_utils metadata op_registry_utils sharded_optim
  sharded_tensor sharder sharding_plan sharding_spec
torch.distributed._shard.checkpoint: _async_executor _async_process_executor _async_thread_executor _checkpointer
  _consolidate_hf_safetensors _dedup_save_plans _dedup_tensors _experimental
  _extension _fsspec_filesystem _hf_utils _nested_dict _pg_transport
  _sharded_tensor_utils _state_dict_stager _storage_utils _traverse _version api
  default_planner filesystem format_utils hf_storage logger logging_handlers
  metadata optimizer planner planner_helpers quantized_hf_storage resharding
  staging state_dict state_dict_loader state_dict_saver stateful storage utils
torch.distributed._shard.checkpoint._experimental: barriers builder checkpoint_process checkpoint_reader
  checkpoint_writer checkpointer config staging types utils
torch.distributed._shard.sharded_optim: api
torch.distributed._shard.sharded_tensor: _ops api logger logging_handlers metadata reshard shard utils
torch.distributed._shard.sharded_tensor._ops: _common binary_cmp init misc_ops tensor_ops
torch.distributed._shard.sharding_plan: api
torch.distributed._shard.sharding_spec: _internals api chunk_sharding_spec chunk_sharding_spec_ops
torch.distributed._shard.sharding_spec.chunk_sharding_spec_ops: _common embedding embedding_bag
torch.distributed._sharded_tensor: _ops api logger logging_handlers metadata reshard shard utils
torch.distributed._sharded_tensor._ops: _common binary_cmp init misc_ops tensor_ops
torch.distributed._sharding_spec: _internals api chunk_sharding_spec chunk_sharding_spec_ops
torch.distributed._sharding_spec.chunk_sharding_spec_ops: _common embedding embedding_bag
torch.distributed._symmetric_memory: _nccl _nvshmem_triton _rocshmem_triton _shmem_triton _shmem_triton_utils
torch.distributed._tensor: _shards_wrapper _utils api device_mesh experimental placement_types
torch.distributed._tensor.experimental:
torch.distributed._tools: common_utils fake_collectives fsdp2_mem_tracker ilp_utils mem_tracker memory_tracker
  mod_tracker runtime_estimator sac_estimator sac_ilp
torch.distributed.algorithms: _checkpoint _comm_hooks _optimizer_overlap _quantization ddp_comm_hooks join
  model_averaging
torch.distributed.algorithms._checkpoint: checkpoint_wrapper
torch.distributed.algorithms._comm_hooks: default_hooks
torch.distributed.algorithms._optimizer_overlap: optimizer_overlap
torch.distributed.algorithms._quantization: quantization
torch.distributed.algorithms.ddp_comm_hooks: ddp_zero_hook debugging_hooks default_hooks mixed_precision_hooks
  optimizer_overlap_hooks post_localSGD_hook powerSGD_hook
  quantization_hooks
torch.distributed.algorithms.model_averaging: averagers hierarchical_model_averager utils
torch.distributed.autograd:
torch.distributed.checkpoint: _async_executor _async_process_executor _async_thread_executor _checkpointer
  _consolidate_hf_safetensors _dedup_save_plans _dedup_tensors _experimental _extension
  _fsspec_filesystem _hf_utils _nested_dict _pg_transport _sharded_tensor_utils
  _state_dict_stager _storage_utils _traverse _version api default_planner filesystem
  format_utils hf_storage logger logging_handlers metadata optimizer planner
  planner_helpers quantized_hf_storage resharding staging state_dict state_dict_loader
  state_dict_saver stateful storage utils
torch.distributed.checkpoint._experimental: barriers builder checkpoint_process checkpoint_reader checkpoint_writer
  checkpointer config staging types utils
torch.distributed.debug: _debug_handlers _frontend _handlers _store
torch.distributed.elastic: agent control_plane events metrics multiprocessing rendezvous timer utils
torch.distributed.elastic.agent: server
torch.distributed.elastic.agent.server: api health_check_server local_elastic_agent
torch.distributed.elastic.events: api handlers
torch.distributed.elastic.metrics: api
torch.distributed.elastic.multiprocessing: api errors redirects subprocess_handler tail_log
torch.distributed.elastic.multiprocessing.errors: error_handler handlers
torch.distributed.elastic.multiprocessing.subprocess_handler: handlers subprocess_handler
torch.distributed.elastic.rendezvous: _etcd_stub api c10d_rendezvous_backend dynamic_rendezvous etcd_rendezvous
  etcd_rendezvous_backend etcd_server etcd_store registry static_tcp_rendezvous
  utils
torch.distributed.elastic.timer: api debug_info_logging file_based_local_timer local_timer
torch.distributed.elastic.utils: api data distributed log_level logging process_state store
torch.distributed.elastic.utils.data: cycling_iterator elastic_distributed_sampler
torch.distributed.flight_recorder: components fr_trace
torch.distributed.flight_recorder.components: builder config_manager fr_logger loader types utils
torch.distributed.fsdp: _common_utils _debug_utils _dynamo_utils _exec_order_utils _flat_param _fsdp_extensions
  _fully_shard _init_utils _limiter_utils _optim_utils _runtime_utils _shard_utils
  _state_dict_utils _trace_utils _traversal_utils _unshard_param_utils _wrap_utils api
  fully_sharded_data_parallel sharded_grad_scaler wrap
torch.distributed.fsdp._fully_shard: _fsdp_api _fsdp_collectives _fsdp_common _fsdp_init _fsdp_param _fsdp_param_group
  _fsdp_state _fully_shard
torch.distributed.launcher: api
torch.distributed.nn: api functional jit
torch.distributed.nn.api: remote_module
torch.distributed.nn.jit: instantiator templates
torch.distributed.nn.jit.templates: remote_module_template
torch.distributed.optim: _deprecation_warning apply_optimizer_in_backward functional_adadelta functional_adagrad
  functional_adam functional_adamax functional_adamw functional_rmsprop functional_rprop
  functional_sgd named_optimizer optimizer post_localSGD_optimizer utils
  zero_redundancy_optimizer
torch.distributed.pipelining: _IR _backward _debug _schedule_visualizer _unflatten _utils microbatch schedules stage
torch.distributed.rpc: _testing _utils api backend_registry constants functions internal options rref_proxy
  server_process_global_profiler
torch.distributed.rpc._testing: faulty_agent_backend_registry
torch.distributed.tensor: _api _collective_utils _decompositions _dispatch _dtensor_spec _nonlinear_redux _op_schema
  _ops _random _redistribute _sharding_prop _shards_wrapper _tp_conv _utils debug device_mesh
  experimental parallel placement_types
torch.distributed.tensor._ops: _common_rules _conv_ops _einsum_strategy _embedding_ops _mask_buffer _math_ops
  _matrix_ops _pointwise_ops _random_ops _tensor_ops _view_ops autogen
  single_dim_strategy strategy_validation utils
torch.distributed.tensor.debug: _comm_mode _op_coverage _visualize_sharding
torch.distributed.tensor.experimental: _attention _context_parallel _func_map _register_sharding _tp_transform
torch.distributed.tensor.experimental._context_parallel: _attention _cp_custom_ops _load_balancer _sharding_rules
torch.distributed.tensor.parallel: _data_parallel_utils api ddp fsdp input_reshard loss style
torch.distributions: bernoulli beta binomial categorical cauchy chi2 constraint_registry constraints
  continuous_bernoulli dirichlet distribution exp_family exponential fishersnedecor gamma
  generalized_pareto geometric gumbel half_cauchy half_normal independent inverse_gamma kl
  kumaraswamy laplace lkj_cholesky log_normal logistic_normal lowrank_multivariate_normal
  mixture_same_family multinomial multivariate_normal negative_binomial normal one_hot_categorical
  pareto poisson relaxed_bernoulli relaxed_categorical studentT transformed_distribution transforms
  uniform utils von_mises weibull wishart
torch.export: _draft_export _leakage_detection_utils _patches _remove_auto_functionalized_pass
  _remove_effect_tokens_pass _safeguard _state_dict_utils _swap _trace _tree_utils _unlift _wrapper_utils
  custom_obj custom_ops decomp_utils dynamic_shapes experimental exported_program graph_signature passes
  pt2_archive unflatten
torch.export.experimental: _utils
torch.export.passes:
torch.export.pt2_archive: _package _package_weights constants
torch.fft:
torch.func: _random
torch.futures:
torch.fx: _compatibility _graph_pickler _lazy_graph_module _pytree _symbolic_trace _utils annotate config experimental
  graph graph_module immutable_collections interpreter node operator_schemas passes proxy subgraph_rewriter
  tensor_type traceback
torch.fx.experimental: _backward_state _config _constant_symnode _dynamism _size_hinting accelerator_partitioner
  const_fold debug dynamic_spec graph_gradual_typechecker merge_matmul meta_tracer
  migrate_gradual_types normalize optimization partitioner_utils proxy_tensor recording
  refinement_types rewriter schema_type_annotation sym_node symbolic_shapes unification
  unify_refinements validator
torch.fx.experimental.migrate_gradual_types: constraint constraint_generator constraint_transformation operation
  transform_to_z3 util z3_types
torch.fx.experimental.unification: core dispatch match more multipledispatch unification_tools utils variable
torch.fx.experimental.unification.multipledispatch: conflict core dispatcher utils variadic
torch.fx.passes: _tensorify_python_scalars annotate_getitem_nodes backends dialect fake_tensor_prop graph_drawer
  graph_manipulation graph_transform_observer infra net_min_base operator_support param_fetch
  pass_manager regional_inductor regional_inductor_invoke_subgraph reinplace runtime_assert shape_prop
  split_module split_utils splitter_base tests tools_common utils
torch.fx.passes.backends: cudagraphs
torch.fx.passes.dialect: common
torch.fx.passes.dialect.common: cse_pass
torch.fx.passes.infra: partitioner pass_base pass_manager
torch.fx.passes.tests: _test_split_utils test_pass_manager
torch.fx.passes.utils: common fuser_utils matcher_utils matcher_with_name_node_map_utils source_matcher_utils
torch.jit: _async _await _builtins _check _dataclass_impls _decomposition_utils _decompositions _freeze _fuser
  _ir_utils _logging _monkeytype_config _passes _pickle _recursive _script _serialization _shape_functions
  _state _trace annotations frontend generate_bytecode mobile quantized supported_ops unsupported_tensor_ops
torch.jit._passes: _property_propagation
torch.jit.mobile:
torch.linalg:
torch.masked: _docs _ops maskedtensor
torch.masked.maskedtensor: _ops_refs binary core creation passthrough reductions unary
torch.monitor:
torch.mps: event profiler
torch.mtia: _utils memory mtia_graph
torch.multiprocessing: _atfork pool queue reductions spawn
torch.nativert: backends
torch.nativert.backends: _lower_utils _lowered_aoti_module
torch.nested: _internal
torch.nested._internal: nested_int nested_tensor ops sdpa
torch.nn: _reduction attention backends common_types cpp functional grad init intrinsic modules parallel parameter qat
  quantizable quantized utils
torch.nn.attention: _fa3 _fa4 _registry _utils bias experimental flex_attention varlen
torch.nn.attention.experimental: _paged_attention _scaled_dot_product_attention_quantized
torch.nn.backends: thnn
torch.nn.intrinsic: modules qat quantized
torch.nn.intrinsic.modules: fused
torch.nn.intrinsic.qat: modules
torch.nn.intrinsic.qat.modules: conv_fused linear_fused linear_relu
torch.nn.intrinsic.quantized: dynamic modules
torch.nn.intrinsic.quantized.dynamic: modules
torch.nn.intrinsic.quantized.dynamic.modules: linear_relu
torch.nn.intrinsic.quantized.modules: bn_relu conv_relu linear_relu
torch.nn.modules: _functions activation adaptive batchnorm channelshuffle container conv distance dropout flatten fold
  instancenorm lazy linear linear_cross_entropy linear_cross_entropy_options loss module normalization
  padding pixelshuffle pooling rnn sparse transformer upsampling utils
torch.nn.parallel: _functions comm data_parallel distributed parallel_apply replicate scatter_gather
torch.nn.qat: dynamic modules
torch.nn.qat.dynamic: modules
torch.nn.qat.dynamic.modules: linear
torch.nn.qat.modules: conv embedding_ops linear
torch.nn.quantizable: modules
torch.nn.quantizable.modules: activation rnn
torch.nn.quantized: _reference dynamic functional modules
torch.nn.quantized._reference: modules
torch.nn.quantized._reference.modules: conv linear rnn sparse utils
torch.nn.quantized.dynamic: modules
torch.nn.quantized.dynamic.modules: conv linear rnn
torch.nn.quantized.modules: activation batchnorm conv dropout embedding_ops functional_modules linear normalization
  rnn utils
torch.nn.utils: _deprecation_utils _expanded_weights _named_member_accessor _per_sample_grad clip_grad
  convert_parameters fusion init memory_format parametrizations parametrize prune rnn spectral_norm
  stateless weight_norm
torch.nn.utils._expanded_weights: conv_expanded_weights conv_utils embedding_expanded_weights expanded_weights_impl
  expanded_weights_utils group_norm_expanded_weights instance_norm_expanded_weights
  layer_norm_expanded_weights linear_expanded_weights
torch.numa: binding
torch.onnx: _constants _flags _internal errors operators ops symbolic_helper symbolic_opset10 symbolic_opset11
  symbolic_opset12 symbolic_opset13 symbolic_opset14 symbolic_opset15 symbolic_opset16 symbolic_opset17
  symbolic_opset18 symbolic_opset19 symbolic_opset20 symbolic_opset7 symbolic_opset8 symbolic_opset9 testing
  utils verification
torch.onnx._internal: _lazy_import exporter fx torchscript_exporter
torch.onnx._internal.exporter: _analysis _building _capture_strategies _compat _constants _core _decomp _dispatching
  _dynamic_shapes _errors _exportable_module _flags _fx_passes _input_observer _ir_passes
  _isolated _onnx_program _registration _reporting _schemas _tensors _testing _torchlib
  _type_casting _verification
torch.onnx._internal.exporter._torchlib: _tensor_typing _torchlib_registry ops
torch.onnx._internal.exporter._torchlib.ops: core hop nn symbolic symops
torch.onnx._internal.fx: _pass passes type_utils
torch.onnx._internal.fx.passes: type_promotion
torch.onnx._internal.torchscript_exporter: _experimental _globals _type_utils jit_utils onnx_proto_utils registration
  symbolic_helper symbolic_opset10 symbolic_opset11 symbolic_opset12
  symbolic_opset13 symbolic_opset14 symbolic_opset15 symbolic_opset16
  symbolic_opset17 symbolic_opset18 symbolic_opset19 symbolic_opset20
  symbolic_opset7 symbolic_opset8 symbolic_opset9 utils verification
torch.onnx.ops: _dtype_mappings _impl _symbolic_impl
torch.ops:
torch.optim: _adafactor _functional _multi_tensor _muon _stateless adadelta adagrad adam adamax adamw asgd lbfgs
  lr_scheduler nadam optimizer radam rmsprop rprop sgd sparse_adam swa_utils
torch.optim._multi_tensor:
torch.package: _digraph _directory_reader _importlib _mangling _mock _package_pickler _package_unpickler _stdlib
  analyze file_structure_representation find_file_dependencies glob_group importer package_exporter
  package_importer
torch.package.analyze: find_first_use_of_broken_modules is_from_package trace_dependencies
torch.profiler: _chrome_trace_export _cupti_monitor _cupti_monitor_trace _memory_profiler _pattern_matcher
  _trace_validator _utils itt profiler python_tracer
torch.quantization: _numeric_suite _numeric_suite_fx _quantized_conversions fake_quantize fuse_modules
  fuser_method_mappings fx observer qconfig quant_type quantization_mappings quantize quantize_fx
  quantize_jit stubs utils
torch.quantization.fx: _equalize convert fuse fusion_patterns graph_module match_utils pattern_utils prepare
  quantization_patterns quantization_types utils
torch.signal: windows
torch.signal.windows: windows
torch.sparse: _semi_structured_conversions _semi_structured_ops _triton_ops _triton_ops_meta semi_structured
torch.special:
torch.testing: _comparison _creation _internal _utils
torch.testing._internal: autocast_test_lists autograd_function_db check_kernel_launches codegen common_cuda
  common_device_type common_dist_composable common_distributed common_dtype common_fsdp
  common_jit common_methods_invocations common_mkldnn common_modules common_mps common_nn
  common_ops_unbacked common_optimizers common_pruning common_quantization common_quantized
  common_subclass common_utils common_xpu composite_compliance custom_op_db custom_tensor data
  dist_utils distributed dynamo_pytree_test_utils dynamo_test_failures fake_config_module
  fake_config_module2 fake_config_module3 generated hop_db hypothesis_utils inductor_utils
  jit_metaprogramming_utils jit_utils logging_tensor logging_utils opinfo optests
  py312_intrinsics quantization_torch_package_models static_module subclasses test_module
  torchbind_impls triton_utils two_tensor
torch.testing._internal.codegen:
torch.testing._internal.data: network1 network2
torch.testing._internal.distributed: _shard _tensor checkpoint_utils common_state_dict ddp_under_dist_autograd_test
  distributed_test distributed_utils fake_pg multi_threaded_pg nn rpc rpc_utils
torch.testing._internal.distributed._shard: sharded_tensor test_common
torch.testing._internal.distributed._shard.sharded_tensor: _test_ops_common _test_st_common
torch.testing._internal.distributed._tensor: common_dtensor
torch.testing._internal.distributed.nn: api
torch.testing._internal.distributed.nn.api: remote_module_test
torch.testing._internal.distributed.rpc: dist_autograd_test dist_optimizer_test examples faulty_agent_rpc_test
  faulty_rpc_agent_test_fixture jit rpc_agent_test_fixture rpc_test
  tensorpipe_rpc_agent_test_fixture
torch.testing._internal.distributed.rpc.examples: parameter_server_test reinforcement_learning_rpc_test
torch.testing._internal.distributed.rpc.jit: dist_autograd_test rpc_test rpc_test_faulty
torch.testing._internal.generated: annotated_fn_args
torch.testing._internal.opinfo: core definitions refs utils
torch.testing._internal.opinfo.definitions: _masked fft linalg nested signal sparse special
torch.testing._internal.optests: aot_autograd autograd_registration fake_tensor generate_tests make_fx
torch.testing._internal.test_module: future_div no_future_div
torch.utils: _appending_byte_serializer _config_module _content_store _contextlib _cpp_embed_headers
  _cpp_extension_versioner _cuda_debug _cxx_pytree _debug_mode _device _dtype_abbrs _exposed_in _filelock
  _foreach_utils _functools _get_clean_triton _helion _import_utils _inspect _mode_utils _ordered_set
  _pallas _python_dispatch _pytree _runtime_estimation _stats _strobelight _sympy _thunk _traceback _triton
  _typing_utils _zip backcompat backend_registration benchmark bundled_inputs checkpoint collect_env
  cpp_backtrace cpp_extension data debug_log deterministic dlpack file_baton flop_counter hipify hooks jit
  mkldnn mobile_optimizer model_dump model_zoo module_tracker serialization show_pickle tensorboard
  throughput_benchmark viz weak
torch.utils._debug_mode: _calls _mode _utils
torch.utils._strobelight: cli_function_profiler
torch.utils._sympy: functions interp numbers printers reference singleton_int solve symbol value_ranges
torch.utils.backcompat:
torch.utils.benchmark: examples op_fuzzers utils
torch.utils.benchmark.examples: compare fuzzer op_benchmark simple_timeit spectral_ops_fuzz_test
torch.utils.benchmark.op_fuzzers: binary sparse_binary sparse_unary spectral unary
torch.utils.benchmark.utils: _stubs common compare compile cpp_jit fuzzer sparse_fuzzer timer valgrind_wrapper
torch.utils.benchmark.utils.valgrind_wrapper: timer_interface
torch.utils.data: _utils backward_compatibility dataloader datapipes dataset distributed graph graph_settings sampler
torch.utils.data._utils: collate fetch pin_memory signal_handling worker
torch.utils.data.datapipes: _decorator _hook_iterator _typing dataframe datapipe gen_pyi iter map utils
torch.utils.data.datapipes.dataframe: dataframe_wrapper dataframes datapipes structures
torch.utils.data.datapipes.iter: callable combinatorics combining filelister fileopener grouping routeddecoder
  selecting sharding streamreader utils
torch.utils.data.datapipes.map: callable combinatorics combining grouping utils
torch.utils.data.datapipes.utils: common decoder snapshot
torch.utils.hipify: constants cuda_to_hip_mappings hipify_python version
torch.utils.jit: log_extract
torch.utils.model_dump: __main__
torch.utils.serialization: config
torch.utils.tensorboard: _convert_np _embedding _onnx_graph _proto_graph _pytorch_graph _utils summary writer
torch.utils.viz: _cycles
torch.xpu: _gpu_trace _utils graphs memory random streams
"""
