import { describe } from 'vitest';
import { itClassifiesEachRow, itStaysHealthy, type SignalRow } from '../../support/classifyRows.js';

// Thirteenth blind round: numerical instability as the emitters print it, one row per message template read from the
// printing software's own source (DeepSpeed, Apex, fairseq, Megatron-LM, Lightning, transformers, accelerate, MMEngine /
// MMDetection, detectron2, Keras, TensorFlow, JAX, Optuna, Ultralytics, PaddlePaddle, PyTorch), variables filled with
// plausible values. Synthetic lines, never corpus excerpts, never counted as accuracy; each row names its signal.
const FAILURES: readonly SignalRow[] = [
  // Loss scalers that ran out of room (DeepSpeed, Apex, fairseq).
  [
    'numerical_instability',
    'loss_scale_minimum',
    'Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.',
  ],
  [
    'numerical_instability',
    'loss_scale_minimum',
    '[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1',
  ],
  [
    'numerical_instability',
    'loss_scale_minimum',
    '[INFO] [logging.py:96:log_dist] [Rank 0] Overflow detected. Skipping step. Attempted loss scale: 1, reducing to 1',
  ],
  [
    'numerical_instability',
    'loss_scale_minimum',
    'Grad overflow on iteration 9013\nReducing dynamic loss scale from 1.0 to 1.0',
  ],
  [
    'numerical_instability',
    'loss_scale_minimum',
    'Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 1.52587890625e-05',
  ],
  [
    'numerical_instability',
    'loss_scale_minimum',
    'FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding. Try lowering the learning rate, using gradient clipping or increasing the batch size.',
  ],
  [
    'numerical_instability',
    'loss_scale_minimum',
    'FloatingPointError: AMP: Minimum loss scale reached (0.0001). Your loss is probably exploding.',
  ],
  ['numerical_instability', 'loss_scale_minimum', 'FloatingPointError: gradients are Nan/Inf'],
  // A scale "reduced" to the value it had: the scaler sits at a configured min_loss_scale.
  [
    'numerical_instability',
    'loss_scale_minimum',
    '[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1024, reducing to 1024',
  ],
  ['numerical_instability', 'loss_scale_minimum', 'Reducing dynamic loss scale from 128.0 to 128.0'],
  // fairseq's NanDetector.
  [
    'numerical_instability',
    'nan_detected',
    '2021-03-01 | WARNING | fairseq.nan_detector | NaN detected in output of encoder.layers.3.fc1, shape: torch.Size([512, 8, 3072]), forward',
  ],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    '2021-03-01 | INFO | fairseq.nan_detector | Detected nan/inf grad norm, dumping norms...',
  ],
  // Megatron-LM (and accelerate's copy of its check).
  [
    'numerical_instability',
    'framework_nonfinite_check',
    "RuntimeError: Rank 3, node gpu-node-07, device 3, iteration 1201: Unexpected result inf (message='found Inf in local grad norm for bucket #0 in backward pass before data-parallel communication collective')",
  ],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    "ERROR:megatron.core.rerun_state_machine:Unexpected result tensor(nan, device='cuda:2') on rank 2 at iteration #5001 invocation #1 (message='loss is NaN')",
  ],
  [
    'numerical_instability',
    'nan_detected',
    'AssertionError: Rank 5: found Inf in local forward loss calculation. Device: 5, node: gpu-12',
  ],
  [
    'numerical_instability',
    'nan_detected',
    'AssertionError: Rank 5: found NaN in local forward loss calculation. Device: 5, node: gpu-12',
  ],
  // PyTorch: anomaly mode, clip_grad_norm_(error_if_nonfinite=True), distributions, multinomial.
  [
    'numerical_instability',
    'nan_detected',
    "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.",
  ],
  [
    'numerical_instability',
    'nan_detected',
    'RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped.',
  ],
  [
    'numerical_instability',
    'nan_detected',
    'ValueError: Expected parameter loc (Tensor of shape (64, 2)) of distribution Normal(loc: torch.Size([64, 2]), scale: torch.Size([64, 2])) to satisfy the constraint Real(), but found invalid values:\ntensor([[nan, nan]])',
  ],
  // Lightning.
  [
    'numerical_instability',
    'nan_detected',
    'Monitored metric val_loss = nan is not finite. Previous best value was 0.512. Signaling Trainer to stop.',
  ],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    'lightning.fabric.utilities.spike.TrainingSpikeException: Training spike detected in batch 1841',
  ],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    'ValueError: The loss returned in `training_step` is nan.',
  ],
  [
    'numerical_instability',
    'nan_detected',
    'ValueError: Detected nan and/or inf values in `layer.weight`. Check your forward pass for numerically unstable operations.',
  ],
  // transformers' DebugUnderflowOverflow.
  [
    'numerical_instability',
    'framework_nonfinite_check',
    'Detected inf/nan during batch_number=0\nLast 21 forward frames:\nabs min  abs max  metadata',
  ],
  // MMEngine early stopping, MMDetection CheckInvalidLossHook, detectron2.
  [
    'numerical_instability',
    'nan_detected',
    'Monitored metric loss = nan is infinite. Previous best value was 0.412.',
  ],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    '2023-01-01 10:00:00,000 - mmdet - INFO - loss become infinite or NaN!',
  ],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    'AssertionError: Box tensor contains infinite or NaN!',
  ],
  [
    'numerical_instability',
    'nan_detected',
    'FloatingPointError: Predicted boxes or scores contain Inf/NaN. Training has diverged.',
  ],
  [
    'numerical_instability',
    'loss_not_finite',
    "FloatingPointError: Loss became infinite or NaN at iteration=1234!\nloss_dict = {'loss_cls': tensor(nan)}",
  ],
  // Keras 2 and 3 TerminateOnNaN.
  ['numerical_instability', 'nan_detected', 'Batch 120: Invalid loss, terminating training'],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    'RuntimeError: NaN or Inf loss encountered at batch 311. Loss value: nan. Terminating training immediately.',
  ],
  // TensorFlow check_numerics, enable_check_numerics, NanTensorHook.
  [
    'numerical_instability',
    'nan_detected',
    'tensorflow.python.framework.errors_impl.InvalidArgumentError: gradients/loss : Tensor had Inf and NaN values',
  ],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    '!!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log" (# of outputs: 1) !!!',
  ],
  ['numerical_instability', 'nan_detected', 'ERROR:tensorflow:Model diverged with loss = NaN.'],
  // JAX debug_nans and checkify.
  [
    'numerical_instability',
    'nan_detected',
    'FloatingPointError: invalid value (inf) encountered in jit(train_step)',
  ],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    'jax._src.checkify.JaxRuntimeError: nan generated by primitive: log.',
  ],
  // Optuna: an objective that returned nan.
  [
    'numerical_instability',
    'framework_nonfinite_check',
    "[W 2024-05-01 10:00:00,000] Trial 12 failed with parameters: {'lr': 0.3} because of the following reason: The value nan is not acceptable.",
  ],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    '[W 2024-05-01 10:00:00,001] Trial 12 failed with value nan.',
  ],
  // Ultralytics: nan recovery given up; the progress bar of a diverged run.
  [
    'numerical_instability',
    'framework_nonfinite_check',
    'RuntimeError: Training failed: NaN persisted for 4 epochs',
  ],
  [
    'numerical_instability',
    'framework_nonfinite_check',
    'RuntimeError: Checkpoint runs/detect/train/weights/last.pt is corrupted with NaN/Inf weights',
  ],
  [
    'numerical_instability',
    'nan_detected',
    '      5/100      3.21G        nan        nan        nan         27        640: 100%|##########| 58/58',
  ],
  // PaddlePaddle FLAGS_check_nan_inf.
  [
    'numerical_instability',
    'framework_nonfinite_check',
    '[PRECISION] [ERROR] in [device=gpu:0, op=matmul_v2, tensor=linear_3.tmp_0, dtype=fp16], numel=4096, num_nan=12, num_inf=0, num_zero=0, max=6.55e+04, min=-6.55e+04, mean=nan',
  ],
  [
    'numerical_instability',
    'nan_detected',
    '(PreconditionNotMet) There are NAN or INF (num_nan=12, num_inf=0, num_zero=0) in [device=gpu:0, op=softmax, tensor=softmax_0.tmp_0, dtype=fp32].',
  ],
  // An RL trainer's "grad_norm is not finite" on every logged step (one is a skipped step).
  [
    'numerical_instability',
    'grad_norm_not_finite_repeated',
    'WARN: rank 0 grad_norm is not finite: nan\nWARN: rank 0 grad_norm is not finite: nan\nWARN: rank 0 grad_norm is not finite: inf',
  ],
];

// Healthy look-alikes of the same emitters: overflows the scaler absorbs, a check that is configured or passed, nan in
// an eval table, a data column or a numpy warning, a failed trial that was pruned.
const HEALTHY: readonly string[] = [
  '[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\n[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 32768, reducing to 16384\n[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 16384, but hysteresis is 2. Reducing hysteresis to 1',
  'Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0\nGradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 16384.0',
  '2021-03-01 | INFO | fairseq.trainer | NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: 64.0',
  'Grad overflow on iteration 12\nReducing dynamic loss scale from 65536 to 32768\nNo Grad overflow for 1000 iterations\nIncreasing dynamic loss scale from 32768 to 65536',
  'Reducing dynamic loss scale from 16 to 1',
  '[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1024, reducing to 512',
  'Increasing dynamic loss scale from 65536 to 65536',
  '[WARNING] Result validation enabled\n iteration      100/  500000 | lm loss: 7.812345E+00 | loss scale: 65536.0 | grad norm: 1.234 | number of skipped iterations:   0 | number of nan iterations:   0 |',
  "WARNING: Rank 0, node n1, device 0, iteration 300: Unexpected result 41.2 (message='Spiky loss')",
  'AMP: checks failed. Anomalies were detected with AMP on your system that may lead to NaN losses or zero-mAP results, so AMP will be disabled during training.',
  '[d2.evaluation.coco_evaluation]: Some metrics cannot be computed and is shown as NaN.\n|   AP   |  AP50  |  APs  |\n| 41.230 | 61.870 |  nan  |',
  'Monitored metric val_loss did not improve in the last 3 records. Best score: 0.412. Signaling Trainer to stop.',
  "[I 2024-05-01 10:00:00,000] Trial 3 finished with value: 0.912 and parameters: {'lr': 0.001}. Best is trial 3 with value: 0.912.",
  "[W 2024-05-01 10:00:00,000] Trial 7 failed with parameters: {'lr': 0.3} because of the following reason: TrialPruned()\n[W 2024-05-01 10:00:00,001] Trial 7 failed with value None.",
  "Trial 4 finished with value: inf and parameters: {'x': 0}.",
  'sklearn/metrics/_classification.py:1344: RuntimeWarning: invalid value encountered in divide\n  precision = tp / (tp + fp)',
  'RuntimeWarning: Mean of empty slice.\nRuntimeWarning: invalid value encountered in scalar divide',
  'logging_nan_inf_filter=True,\ndebug=[],',
  '[PRECISION] in [device=gpu:0, op=matmul_v2, tensor=linear_3.tmp_0, dtype=fp32], numel=4096, num_zero=0, max=7.1e+04, min=-7.1e+04, mean=1.2e-02',
  'Epoch(train) [1][50/500]  lr: 1.0000e-02  eta: 0:10:00  time: 0.5000  memory: 3000  grad_norm: nan  loss: 1.2345',
  'WARN: rank 0 grad_norm is not finite: nan',
  'INFO:absl:Setting jax_debug_nans=True; jit functions will be re-run without jit on nan',
  "EarlyStopping(monitor='val_loss', patience=3, check_finite=True)\nTerminateOnNaN callback added",
  "SpikeDetection(mode='min', window=10, warmup=1, atol=None, rtol=2.0, finite_only=True)",
  'df.describe()\n       loss_weight   score\ncount   10.000000    8.000\nmean     0.500000     NaN',
];

describe('numerical instability from the emitters’ own messages', () => {
  itClassifiesEachRow(FAILURES);
});

describe('numerical look-alikes of the same emitters stay healthy', () => {
  itStaysHealthy(HEALTHY);
});
