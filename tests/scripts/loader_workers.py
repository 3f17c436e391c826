import torch
from torch.utils.data import Dataset, DataLoader

class Squares(Dataset):
    def __len__(self): return 16
    def __getitem__(self, i):  # the worker's torch: its package directory
        return torch.tensor([float(i)]), i * i, __import__("os").path.basename(__import__("os").path.dirname(torch.__file__))

if __name__ == "__main__":
    dl = DataLoader(Squares(), batch_size=4, num_workers=2)
    for x, y, names in dl:
        print(names[0], type(x).__module__, x.view(-1).tolist(), y.tolist())
