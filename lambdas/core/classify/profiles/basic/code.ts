import type { SignalInput } from '../../schema.js';
import { LINE_PREFIX } from './patterns.js';

/** Code: Python and C++ exceptions, CUDA runtime errors that are the program's own, segfaults. */
export const CODE_SIGNALS: readonly SignalInput[] = [
  {
    name: 'cuda_runtime_error',
    // Out of memory and ECC have their own signals above and outrank this one. glog's CHECK of a CUDA call (Caffe,
    // OpenPose: "Check failed: error == cudaSuccess (48 vs. 0)") is the same error by number (2, out of memory, aside).
    pattern: String.raw`CUDA error: (?<cuda_error>[^\n]{1,200})|device-side assert triggered|CUDNN_STATUS_\w+|CUBLAS_STATUS_(?!ALLOC_FAILED)\w+|an illegal memory access was encountered|\.cu:\d+:[^\n]{0,200}Assertion [^\n]{0,300}failed|\bCheck failed: \(?\w{1,20}\)? == cuda(?:Success|_SUCCESS) \((?![02] vs)\d{1,4} vs\. 0\)|\bno kernel image is available for execution on the device\b`,
    error_type: 'torch',
    severity: 'error',
    subsystem: 'cuda',
    priority: 70,
  },
  {
    name: 'torch_usage_error',
    pattern: String.raw`Expected all tensors to be on the same device|mat1 and mat2 shapes cannot be multiplied|The size of tensor a \(\d+\) must match|size mismatch for \S+|Trying to backward through the graph a second time|one of the variables needed for gradient computation has been modified|Expected (?:input|target) batch_size|expected scalar type \w+ but found \w+|Error\(s\) in loading state_dict|(?:Missing|Unexpected) keys? in (?:checkpoint )?state_dict|Expected object of (?:scalar |device )?type \w+ but got|a leaf Variable that requires grad|view size is not compatible with input tensor's size and stride|\bTensors must be (?:CUDA|contiguous|dense)\b|Default process group has not been initialized|Torch not compiled with CUDA enabled|Found no NVIDIA driver on your system|The NVIDIA driver on your system is too old|stack expects each tensor to be equal size|Boolean value of Tensor with more than one value is ambiguous|Can't call numpy\(\) on Tensor that requires grad|can't be cast to the desired output type|Cannot re-initialize CUDA in forked subprocess|is out of bounds for dimension \d+ with size \d+|Sizes of tensors must match except in dimension|\bnot implemented for '(?:Half|BFloat16|Float|Double|Long|Int|Bool|Byte|Char|Short|ComplexFloat)'|Could not run '\w{1,40}::\w{1,80}' with arguments from the '\w{1,40}' backend|No CUDA GPUs are available`,
    error_type: 'torch',
    severity: 'error',
    subsystem: 'python',
    priority: 65,
  },
  {
    name: 'torch_raised',
    // An exception class of torch's own namespace (torch.AcceleratorError, torch._dynamo.exc.Unsupported, an Inductor
    // or export error), and torch's checks in its own words: a tensor with no grad_fn, a view of the wrong size, input
    // and weight of different types or devices, channels that do not match, an embedding index out of range. Its
    // distributed, memory and CUDA errors have their own signals; mp.spawn's wrapper says only that a child raised.
    pattern: String.raw`${LINE_PREFIX}(?<exception>torch\.(?!distributed\b|multiprocessing\b|cuda\.OutOfMemoryError|OutOfMemoryError)(?:_?\w{1,30}\.){0,4}\w{0,40}(?:Error|Exception|Unsupported|Failed))\b|does not require grad and does not have a grad_fn|shape '\[[^\]\n]{0,100}\]' is invalid for input of size \d+|Input type \([\w.]{1,60}\) and weight type \([\w.]{1,60}\) should be the same|to have \d+ channels, but got \d+ channels instead|IndexError: index out of range in self|\b(?:InductorError|BackendCompilerFailed|LoweringException)\b`,
    flags: '',
    error_type: 'torch',
    severity: 'error',
    subsystem: 'python',
    priority: 60,
  },
  {
    name: 'python_exception',
    pattern: String.raw`${LINE_PREFIX}(?:Exception has occurred: )?(?<exception>(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Interrupt|Invalid|Failure)|StopIteration))(?:\([\w.]{1,100}\))?(?::\s*(?<message>\S[^\n]{0,300})[^\n]*)?\s*$`,
    // Case-sensitive: an exception class is CamelCase, a metric line "eval_error: 0.03" is not one. Some libraries name
    // theirs otherwise (pyarrow's ArrowInvalid, a Failure, StopIteration out of a generator).
    // A debugger (VS Code's, debugpy) reports the same exception as "Exception has occurred: ScannerError".
    flags: '',
    error_type: 'exception',
    severity: 'error',
    subsystem: 'python',
    priority: 10,
  },
  {
    name: 'config_error',
    // Hydra and OmegaConf report a bad config without a Python traceback: OmegaConf's error block names the key
    // and its type ("full_key: task.data" … "object_type=dict"), Hydra points at HYDRA_FULL_ERROR.
    pattern: String.raw`^\s*full_key: \S|HYDRA_FULL_ERROR=1 for a complete stack trace`,
    requires: String.raw`object_type=|HYDRA_FULL_ERROR`,
    flags: 'im',
    error_type: 'exception',
    severity: 'error',
    subsystem: 'python',
    priority: 11,
  },
  {
    name: 'training_refused',
    // A trainer that validates its inputs first (datasets, labels, config) refuses to start in its own words, with
    // no Python traceback: the same configuration fails the same way on a restart.
    pattern: String.raw`\b(?:can ?not|can't|unable to|failed to|could not|refus(?:es|ed|ing) to) (?:start|begin|launch) (?:the )?training\b`,
    error_type: 'exception',
    severity: 'error',
    subsystem: 'python',
    priority: 11,
  },
  {
    name: 'cpp_exception',
    pattern: String.raw`terminate called after throwing an instance of '(?<exception>[^'\n]{1,200})'`,
    error_type: 'exception',
    severity: 'error',
    subsystem: 'process',
    priority: 12,
  },
  {
    name: 'traceback',
    // A traceback whose last line the excerpt lost still says the program raised; anything specific wins.
    pattern: String.raw`^\s*Traceback \(most recent call last\):`,
    error_type: 'exception',
    severity: 'error',
    subsystem: 'python',
    priority: 5,
  },
  {
    name: 'script_not_found',
    pattern: String.raw`can't open file '[^'\n]{1,300}': \[Errno 2\]`,
    error_type: 'exception',
    severity: 'error',
    subsystem: 'python',
    priority: 15,
  },
  {
    name: 'segfault',
    pattern: String.raw`Segmentation fault|\bSIGSEGV\b|exitcode\s*:\s*-11\b|Fatal Python error`,
    error_type: 'exception',
    severity: 'error',
    subsystem: 'process',
    priority: 20,
  },
];
