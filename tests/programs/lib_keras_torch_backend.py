"""Keras 3 on its torch backend (KERAS_BACKEND=torch): a Sequential MLP, a functional-API CNN (Conv2D,
BatchNormalization, MaxPooling2D, Dropout, Dense), a sequence model (Embedding, LSTM, GRU, LayerNormalization,
MultiHeadAttention) and a custom layer subclass, compiled with Adam/AdamW and trained with fit() (validation split,
callbacks), evaluate(), predict(), a save()/load_model() round trip, and a keras.ops section."""
import os
import tempfile

os.environ["KERAS_BACKEND"] = "torch"

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers, ops  # noqa: E402


def r(x, n=4):
    """Rounded floats for line-by-line comparison."""
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


class LossHistory(keras.callbacks.Callback):
    """Collects the per-epoch training and validation losses."""

    def on_train_begin(self, logs=None):
        self.losses, self.val_losses = [], []

    def on_epoch_end(self, epoch, logs=None):
        self.losses.append(logs["loss"])
        self.val_losses.append(logs["val_loss"])


@keras.saving.register_keras_serializable(package="torchlike_test")
class ScaledDense(layers.Layer):
    """A Dense layer with a learned per-unit scale and a custom get_config."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform", name="w")
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")
        self.scale = self.add_weight(shape=(self.units,), initializer="ones", name="scale")

    def call(self, x):
        return ops.tanh(ops.matmul(x, self.w) + self.b) * self.scale

    def get_config(self):
        return {**super().get_config(), "units": self.units}


keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)

# --- Sequential MLP: regression with mse, Adam, custom layer ---------------------------------------------------
x_reg = rng.normal(size=(160, 8)).astype("float32")
y_reg = (x_reg[:, :1] * 0.5 - x_reg[:, 1:2] * 0.3 + 0.1 * np.sin(x_reg[:, 2:3])).astype("float32")
mlp = keras.Sequential([
    keras.Input((8,)),
    layers.Dense(32, activation="relu"),
    ScaledDense(16),
    layers.Dense(1),
], name="mlp")
mlp.compile(optimizer=keras.optimizers.Adam(1e-2), loss="mse", metrics=["mae"])
hist = LossHistory()
h = mlp.fit(x_reg, y_reg, epochs=3, batch_size=64, validation_split=0.2, verbose=0, shuffle=False,
            callbacks=[hist])
print("mlp params", mlp.count_params(), "layers", [type(layer).__name__ for layer in mlp.layers])
print("mlp loss", r(h.history["loss"]))
print("mlp val_loss", r(hist.val_losses))
print("mlp mae", r(h.history["mae"]))
ev = mlp.evaluate(x_reg, y_reg, verbose=0, batch_size=80)
print("mlp evaluate", r(ev))
pred = mlp.predict(x_reg[:5], verbose=0)
print("mlp predict", pred.shape, r(pred[:, 0].tolist()))

# --- functional CNN: classification with sparse categorical crossentropy, AdamW -------------------------------
n_img = 80
x_img = rng.normal(size=(n_img, 12, 12, 1)).astype("float32")
y_img = (x_img[:, :6].mean(axis=(1, 2, 3)) > x_img[:, 6:].mean(axis=(1, 2, 3))).astype("int64")
y_img = y_img + 2 * (x_img[:, :, :6].mean(axis=(1, 2, 3)) > 0).astype("int64")
inp = keras.Input((12, 12, 1))
z = layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
z = layers.BatchNormalization()(z)
z = layers.MaxPooling2D(2)(z)
z = layers.Conv2D(16, 3, activation="relu")(z)
z = layers.GlobalAveragePooling2D()(z)
z = layers.Dropout(0.2)(z)
out = layers.Dense(4, activation="softmax")(z)
cnn = keras.Model(inp, out, name="cnn")
cnn.compile(optimizer=keras.optimizers.AdamW(5e-3, weight_decay=1e-3),
            loss=keras.losses.SparseCategoricalCrossentropy(), metrics=["accuracy"])
h = cnn.fit(x_img, y_img, epochs=3, batch_size=32, validation_split=0.2, verbose=0, shuffle=False,
            callbacks=[keras.callbacks.EarlyStopping(monitor="val_loss", patience=5)])
print("cnn params", cnn.count_params(), "output", cnn.output_shape)
print("cnn loss", r(h.history["loss"]))
print("cnn val_loss", r(h.history["val_loss"]))
bn = cnn.layers[2]
print("bn moving_mean", r(ops.convert_to_numpy(bn.moving_mean)[:3].tolist()),
      "moving_var", r(ops.convert_to_numpy(bn.moving_variance)[:3].tolist()))
print("cnn evaluate", r(cnn.evaluate(x_img, y_img, verbose=0, batch_size=80)))
probs = cnn.predict(x_img[:4], verbose=0)
print("cnn predict", probs.shape, r(probs.sum(axis=1).tolist()), probs.argmax(axis=1).tolist())

# --- sequence model: Embedding + LSTM + GRU + LayerNormalization + MultiHeadAttention ---------------------------
vocab, seq_len = 20, 10
x_seq = rng.integers(1, vocab, size=(80, seq_len))
y_seq = (x_seq[:, :3].sum(axis=1) % 3).astype("int64")
tok = keras.Input((seq_len,), dtype="int32")
e = layers.Embedding(vocab, 16)(tok)
s = layers.LSTM(16, return_sequences=True)(e)
s = layers.LayerNormalization()(s)
a = layers.MultiHeadAttention(num_heads=2, key_dim=8)(s, s)
s = layers.LayerNormalization()(s + a)
s = layers.GRU(16)(s)
seq_out = layers.Dense(3)(s)
seq_model = keras.Model(tok, seq_out, name="seq")
seq_model.compile(optimizer=keras.optimizers.Adam(1e-2),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
h = seq_model.fit(x_seq, y_seq, epochs=3, batch_size=32, validation_split=0.2, verbose=0, shuffle=False)
print("seq params", seq_model.count_params())
print("seq loss", r(h.history["loss"]))
print("seq val_loss", r(h.history["val_loss"]))
logits = seq_model.predict(x_seq[:3], verbose=0)
print("seq predict", logits.shape, r(logits[0].tolist()))

# --- save / load round trip --------------------------------------------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    for model, xs in ((mlp, x_reg[:8]), (cnn, x_img[:8]), (seq_model, x_seq[:8])):
        path = os.path.join(tmp, model.name + ".keras")
        model.save(path)
        loaded = keras.models.load_model(path)
        same = np.allclose(loaded.predict(xs, verbose=0), model.predict(xs, verbose=0), atol=1e-6)
        print("reload", model.name, type(loaded).__name__, "same predictions", same)
    wpath = os.path.join(tmp, "mlp.weights.h5")
    mlp.save_weights(wpath)
    clone = keras.models.clone_model(mlp)
    clone.load_weights(wpath)
    print("weights round trip", np.allclose(clone.predict(x_reg[:4], verbose=0), mlp.predict(x_reg[:4], verbose=0)))

# --- keras.ops -----------------------------------------------------------------------------------------------------
a = rng.normal(size=(3, 4)).astype("float32")
b = rng.normal(size=(4, 5)).astype("float32")
print("ops matmul", r(ops.convert_to_numpy(ops.sum(ops.matmul(a, b)))))
sm = ops.softmax(ops.convert_to_tensor(a), axis=-1)
print("ops softmax", r(ops.convert_to_numpy(sm)[0].tolist()), r(ops.convert_to_numpy(ops.sum(sm))))
print("ops einsum", r(ops.convert_to_numpy(ops.einsum("ij,jk->ik", a, b))[1].tolist()))
vals, idx = ops.top_k(ops.convert_to_tensor(a[0]), k=2)
print("ops top_k", r(ops.convert_to_numpy(vals).tolist()), ops.convert_to_numpy(idx).tolist())
img = rng.normal(size=(2, 6, 6, 3)).astype("float32")
ker = rng.normal(size=(3, 3, 3, 4)).astype("float32")
c = ops.conv(img, ker, strides=1, padding="valid")
print("ops conv", tuple(c.shape), r(ops.convert_to_numpy(ops.mean(c))), r(ops.convert_to_numpy(ops.std(c))))
print("ops depthwise", tuple(ops.depthwise_conv(img, rng.normal(size=(3, 3, 3, 1)).astype("float32"), 1,
                                                "same").shape))
print("ops max_pool", tuple(ops.max_pool(img, 2, 2).shape), "avg_pool", tuple(ops.average_pool(img, 2, 2).shape))
print("ops logsumexp", r(ops.convert_to_numpy(ops.logsumexp(a, axis=1)).tolist()))
print("ops one_hot", ops.convert_to_numpy(ops.one_hot(np.array([0, 2, 1]), 3)).tolist())
print("ops where", ops.convert_to_numpy(ops.where(a[0] > 0, 1.0, -1.0)).tolist())
print("ops cumsum", r(ops.convert_to_numpy(ops.cumsum(a[0])).tolist()))
print("ops sort/argsort", r(ops.convert_to_numpy(ops.sort(a[1])).tolist()), ops.convert_to_numpy(
    ops.argsort(a[1])).tolist())
print("ops norm", r(ops.convert_to_numpy(ops.norm(a))), "det",
      r(ops.convert_to_numpy(ops.det(ops.matmul(a, ops.transpose(a)) + ops.eye(3)))))
print("ops segment_sum", r(ops.convert_to_numpy(ops.segment_sum(a[:, 0], np.array([0, 1, 0]), num_segments=2))
                           .tolist()))
print("ops gelu/silu", r(ops.convert_to_numpy(ops.gelu(a[0])).tolist()), r(ops.convert_to_numpy(
    ops.silu(a[0])).tolist()))
print("ops fft", r(ops.convert_to_numpy(ops.fft((a[0], np.zeros_like(a[0]))) [0]).tolist()))
print("ops pad/stack", tuple(ops.pad(a, [[1, 1], [0, 2]]).shape), tuple(ops.stack([a, a], axis=0).shape))
print("ops cross_entropy", r(ops.convert_to_numpy(ops.mean(keras.losses.sparse_categorical_crossentropy(
    np.array([0, 1, 3]), a, from_logits=True)))))
print("ops nn.moments", r([ops.convert_to_numpy(v).mean() for v in ops.moments(a, axes=[0])]))
