"""torch.utils.tensorboard.SummaryWriter: scalars (from a few training steps), add_scalars, histograms, images
(CHW, HWC, HW, batches, uint8 and float), text, hparams, embeddings, PR curves, a custom-scalars layout, flush and
close, then the event files read back with tensorboard's EventAccumulator (tags, steps, values, histogram
buckets, image sizes, plugin data) and the embedding projector files."""
import glob
import os
import tempfile

import numpy as np
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.plugins.hparams import plugin_data_pb2
from tensorboard.plugins.pr_curve import plugin_data_pb2 as pr_pb2
from tensorboard.util import tensor_util
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(0)


def r(x, n=4):
    return round(float(x), n)


def load(path):
    acc = EventAccumulator(path, size_guidance={"scalars": 0, "histograms": 0, "images": 0, "tensors": 0})
    acc.Reload()
    return acc


def scalars(acc, tag):
    return [(e.step, r(e.value)) for e in acc.Scalars(tag)]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        logdir = os.path.join(tmp, "run")
        w = SummaryWriter(log_dir=logdir, flush_secs=1)
        print("log_dir", os.path.relpath(w.get_logdir(), tmp), type(w.file_writer).__name__)

        # a few training steps, logged
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randn(16, 3)
        y = x.sum(1, keepdim=True)
        for step in range(4):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            w.add_scalar("train/loss", loss, step)
            w.add_scalar("train/loss_item", loss.item(), step)
            w.add_scalar("train/lr", opt.param_groups[0]["lr"], step)
            w.add_scalars("grads", {"w0": model[0].weight.grad.norm(), "w2": model[2].weight.grad.norm()}, step)
        w.add_scalar("int/tensor", torch.tensor(7), 0)
        w.add_scalar("np/float", np.float32(2.5), 1)
        w.add_scalar("double", torch.tensor(1.25, dtype=torch.float64), 2, new_style=True)

        # histograms: tensors of several dtypes, numpy, bins choices, add_histogram_raw
        w.add_histogram("weights/0", model[0].weight, 0)
        w.add_histogram("weights/0", model[0].weight * 2, 1)
        w.add_histogram("normal", torch.randn(1000), 0, bins="auto")
        w.add_histogram("ints", torch.arange(50), 0, bins=10)
        w.add_histogram("half", torch.linspace(-1, 1, 64).half(), 0)
        w.add_histogram("numpy", np.linspace(0, 1, 33), 0, bins="fd")
        w.add_histogram_raw("raw", min=0.0, max=3.0, num=6, sum=9.0, sum_squares=19.0,
                            bucket_limits=[1.0, 2.0, 3.0], bucket_counts=[1, 2, 3], global_step=0)

        # images
        img = torch.linspace(0, 1, 3 * 8 * 10).reshape(3, 8, 10)
        w.add_image("img/chw", img, 0)
        w.add_image("img/hwc", img.permute(1, 2, 0), 0, dataformats="HWC")
        w.add_image("img/hw", img[0], 0, dataformats="HW")
        w.add_image("img/uint8", (img * 255).to(torch.uint8), 0)
        w.add_images("img/batch", torch.rand(5, 3, 6, 7), 0)
        w.add_images("img/gray_batch", torch.rand(4, 1, 5, 5), 0)
        w.add_image("img/np", np.full((4, 6, 3), 0.5, dtype=np.float32), 0, dataformats="HWC")

        # text, hparams
        w.add_text("notes", "first **note**", 0)
        w.add_text("notes", "second", 1)
        w.add_hparams({"lr": 0.1, "bs": 16, "opt": "sgd", "nest": True, "t": torch.tensor([0.5])},
                      {"hparam/loss": loss.item(), "hparam/acc": 0.75}, run_name="hp")

        # PR curves
        labels = torch.tensor([0, 1, 1, 0, 1, 0, 1, 1, 0, 1])
        preds = torch.linspace(0.05, 0.95, 10)
        w.add_pr_curve("pr", labels, preds, 0, num_thresholds=11)
        w.add_pr_curve_raw("pr_raw", true_positive_counts=[5, 3, 1], false_positive_counts=[5, 2, 0],
                           true_negative_counts=[0, 3, 5], false_negative_counts=[0, 2, 4],
                           precision=[0.5, 0.6, 1.0], recall=[1.0, 0.6, 0.2], global_step=0, num_thresholds=3)

        # embeddings
        feats = torch.randn(6, 5)
        w.add_embedding(feats, metadata=[f"p{i}" for i in range(6)], label_img=torch.rand(6, 3, 4, 4),
                        global_step=0, tag="emb")
        w.add_embedding(feats[:3], metadata=[["a", 1], ["b", 2], ["c", 3]], metadata_header=["name", "n"],
                        global_step=1, tag="emb2")

        # a custom scalars layout and the writer's context-manager close
        w.add_custom_scalars({"Training": {"loss": ["Multiline", ["train/loss", "train/loss_item"]]}})
        w.add_custom_scalars_marginchart(["a", "b", "c"], category="m", title="band")

        # tensors, audio, meshes, boxes, bfloat16 and max_bins histograms
        w.add_tensor("tensor/f32", torch.arange(6.0).reshape(2, 3), 0)
        w.add_tensor("tensor/i64", torch.tensor([[1, -2], [3, 4]]), 0)
        w.add_tensor("tensor/half", torch.tensor([0.5, -1.25]).half(), 0)
        w.add_tensor("tensor/bool", torch.tensor([True, False, True]), 0)
        w.add_audio("audio", torch.sin(torch.linspace(0, 20, 800)), 0, sample_rate=8000)
        verts = torch.tensor([[[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]])
        faces = torch.tensor([[[0, 1, 2], [0, 1, 3]]])
        colors = torch.tensor([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [9, 9, 9]]], dtype=torch.uint8)
        w.add_mesh("mesh", vertices=verts, colors=colors, faces=faces, global_step=0)
        w.add_image_with_boxes("boxes", torch.rand(3, 20, 24), torch.tensor([[2, 2, 10, 12], [5, 6, 20, 18.0]]), 0,
                               labels=["a", "b"])
        w.add_histogram("bf16", torch.randn(200).bfloat16(), 0, max_bins=7, bins=40)
        w.flush()
        w.close()
        with SummaryWriter(os.path.join(tmp, "ctx"), comment="ignored", filename_suffix=".sfx") as w2:
            w2.add_scalar("ctx/v", torch.tensor([3.0]), 5)
        print("suffix", [os.path.basename(p).endswith(".sfx") for p in glob.glob(os.path.join(tmp, "ctx", "*"))])

        # read everything back
        acc = load(logdir)
        tags = acc.Tags()
        print("scalar tags", sorted(tags["scalars"]))
        print("histogram tags", sorted(tags["histograms"]))
        print("image tags", sorted(tags["images"]))
        print("tensor tags", sorted(tags["tensors"]))
        for tag in ("train/loss", "train/loss_item", "train/lr", "int/tensor", "np/float"):
            print("scalars", tag, scalars(acc, tag))
        for name in ("w0", "w2"):
            sub = load(os.path.join(logdir, "grads_" + name))
            print("add_scalars", name, scalars(sub, "grads"))
        dbl = acc.Tensors("double")[0]
        print("new_style", dbl.step, dbl.tensor_proto.dtype, r(tensor_util.make_ndarray(dbl.tensor_proto)))
        for tag in sorted(tags["histograms"]):
            for ev in acc.Histograms(tag):
                h = ev.histogram_value
                print("histogram", tag, ev.step, r(h.min), r(h.max), r(h.num), r(h.sum, 3), r(h.sum_squares, 3),
                      len(h.bucket_limit), [r(v, 3) for v in h.bucket_limit[:4]],
                      [r(v) for v in h.bucket[:6]], r(sum(h.bucket)))
        for tag in ("tensor/f32", "tensor/i64", "tensor/half", "tensor/bool"):
            ev = acc.Tensors(tag)[0]
            if ev.tensor_proto.half_val:  # (torch writes a float32's bits, which tensorboard cannot read back)
                print("tensor", tag, ev.tensor_proto.dtype, list(ev.tensor_proto.half_val))
                continue
            arr = tensor_util.make_ndarray(ev.tensor_proto)
            print("tensor", tag, ev.tensor_proto.dtype, arr.dtype, arr.shape, arr.reshape(-1).tolist())
        snd = acc.Audio("audio")[0]
        print("audio", snd.sample_rate, snd.length_frames, snd.content_type, len(snd.encoded_audio_string))
        import wave
        import io
        with wave.open(io.BytesIO(snd.encoded_audio_string)) as wav:
            frames = np.frombuffer(wav.readframes(8), "<i2")
        print("wav", frames.tolist())
        for tag in sorted(t for t in tags["tensors"] if t.startswith("mesh")):
            ev = acc.Tensors(tag)[0]
            arr = tensor_util.make_ndarray(ev.tensor_proto)
            print("mesh", tag, arr.shape, arr.reshape(-1)[:6].tolist(), acc.SummaryMetadata(tag).plugin_data.plugin_name)
        for tag in sorted(tags["images"]):
            for ev in acc.Images(tag):
                print("image", tag, ev.step, ev.width, ev.height, len(ev.encoded_image_string) > 50,
                      ev.encoded_image_string[:4] == b"\x89PNG")
        from PIL import Image
        import io
        png = Image.open(io.BytesIO(acc.Images("img/chw")[0].encoded_image_string))
        arr = np.asarray(png)
        print("png", png.mode, arr.shape, arr[0, :4, 0].tolist(), arr[-1, -3:, 2].tolist())
        for ev in acc.Tensors("notes/text_summary"):
            print("text", ev.step, ev.tensor_proto.string_val[0].decode())
        meta = acc.summary_metadata
        print("text plugin", acc.SummaryMetadata("notes/text_summary").plugin_data.plugin_name)
        pr = acc.Tensors("pr")[0]
        arr = tensor_util.make_ndarray(pr.tensor_proto)
        print("pr", arr.shape, [[r(v, 3) for v in row] for row in arr[:, :5]])
        prd = pr_pb2.PrCurvePluginData.FromString(acc.SummaryMetadata("pr").plugin_data.content)
        print("pr plugin", acc.SummaryMetadata("pr").plugin_data.plugin_name, prd.num_thresholds)
        raw = acc.Tensors("pr_raw")[0]
        print("pr raw", [[r(v, 3) for v in row] for row in tensor_util.make_ndarray(raw.tensor_proto)])
        layout = [t for t in tags["tensors"] if "custom_scalars" in t]
        print("custom scalars", layout, len(meta) > 0)

        # hparams: a sub-run named by run_name with the metrics, plus the session start/end info
        hp = load(os.path.join(logdir, "hp"))
        print("hp scalars", sorted(hp.Tags()["scalars"]), scalars(hp, "hparam/acc"))
        kinds = []
        for path in sorted(glob.glob(os.path.join(logdir, "hp", "events.*"))):
            for ev in EventFileLoader(path).Load():
                for v in ev.summary.value:
                    if v.metadata.plugin_data.plugin_name != "hparams":
                        continue
                    pd = plugin_data_pb2.HParamsPluginData.FromString(v.metadata.plugin_data.content)
                    kind = pd.WhichOneof("data")
                    kinds.append((v.tag, kind))
                    if kind == "session_start_info":
                        vals = {k: getattr(x, x.WhichOneof("kind")) for k, x in pd.session_start_info.hparams.items()}
                        print("hparams", sorted((k, r(b) if isinstance(b, float) else b) for k, b in vals.items()))
                    if kind == "experiment":
                        print("experiment", sorted((h.name, h.type) for h in pd.experiment.hparam_infos),
                              sorted(m.name.tag for m in pd.experiment.metric_infos))
                    if kind == "session_end_info":
                        print("session end status", pd.session_end_info.status)
        print("hparams tags", kinds)

        # embedding projector files
        proj = open(os.path.join(logdir, "projector_config.pbtxt")).read()
        print("projector", proj.count("embeddings {"), "tensor_name" in proj, "sprite" in proj)
        for d, _, files in sorted(os.walk(logdir)):
            if "tensors.tsv" not in files:
                continue
            tsv = open(os.path.join(d, "tensors.tsv")).read().splitlines()
            meta_lines = open(os.path.join(d, "metadata.tsv")).read().splitlines()
            print("embedding", os.path.relpath(d, logdir), sorted(files), len(tsv),
                  [r(v) for v in tsv[0].split("\t")], meta_lines[:2])
            if "sprite.png" in files:
                print("sprite", Image.open(os.path.join(d, "sprite.png")).size)
        print("projector config", [line.strip() for line in proj.splitlines() if "path" in line or "tensor_name" in line
                                   or "dim" in line])


if __name__ == "__main__":
    main()
