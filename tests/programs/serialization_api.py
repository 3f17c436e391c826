"""torch.typename and torch.serialization's public helpers, printed one fact per line: the names are torch's
module paths, so the comparison with torch runs this program under the drop-in runner."""
import io
import warnings
import zipfile

import torch
import torch.serialization as ser

warnings.simplefilter("ignore")
for obj in [torch.nn.Linear(2, 2), 3, "x", torch.float32, torch.zeros(2).untyped_storage(), torch.zeros(2).storage(),
            torch.nn.Linear, int, None, torch.Size([2]), torch.zeros(2, dtype=torch.int8), torch.nn.Parameter,
            torch.device("cpu"), torch.optim.Adam, len, torch.nn.functional.relu, torch.Generator()]:
    print("typename", torch.typename(obj))
for cls in (torch.UntypedStorage, torch.FloatStorage, torch.LongStorage, torch.TypedStorage):
    print("normalize", cls.__name__, ser.normalize_storage_type(cls).__name__)
print("tags", ser.location_tag(torch.zeros(2).untyped_storage()), ser.location_tag(torch.zeros(2)),
      ser.location_tag(torch.zeros(2, device="meta")))
meta = ser.default_restore_location(torch.zeros(3).untyped_storage(), "meta")
print("meta restore", type(meta).__name__, meta.device, meta.nbytes())
for obj in (object(), torch.zeros(1).untyped_storage()):
    try:
        print("restore", ser.default_restore_location(obj, "foo"))
    except Exception as e:
        print("restore error", type(e).__name__, e)
try:
    ser.location_tag(torch.zeros(1).untyped_storage().__class__)
except Exception as e:
    print("tag error", type(e).__name__)
print("storage type", str(ser.StorageType("HalfStorage")), ser.StorageType("LongStorage").dtype)
print("version", ser.check_module_version_greater_or_equal(torch, (2,)),
      ser.check_module_version_greater_or_equal(torch, (3,)),
      ser.check_module_version_greater_or_equal(torch, (2, 13, 0), error_if_malformed=False))
try:
    ser.check_module_version_greater_or_equal(torch, (2, 13, 0))
except RuntimeError as e:  # (the message quotes torch.__version__: '2.13.0+cpu' in torch)
    print("version error", str(e).replace(torch.__version__, "<version>"))
saved = io.BytesIO()
torch.save({"w": torch.arange(4.0)}, saved)
buf = io.BytesIO()  # the same archive without its byteorder record (as files written before torch 2.1)
with zipfile.ZipFile(io.BytesIO(saved.getvalue())) as src, zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as dst:
    for name in src.namelist():
        if not name.endswith("/byteorder"):
            dst.writestr(name, src.read(name))
for order in (None, ser.LoadEndianness.LITTLE, ser.LoadEndianness.BIG, ser.LoadEndianness.NATIVE):
    ser.set_default_load_endianness(order)
    print("endianness", order, ser.get_default_load_endianness(),
          torch.load(io.BytesIO(buf.getvalue()))["w"].tolist())
ser.set_default_load_endianness(None)
with ser.skip_data():
    skipped = io.BytesIO()
    torch.save([torch.ones(3), torch.arange(2)], skipped)
print("skip save", torch.load(io.BytesIO(skipped.getvalue())))
with ser.skip_data():
    print("skip load", [t.shape for t in torch.load(io.BytesIO(buf.getvalue()))["w"].unsqueeze(0)])
