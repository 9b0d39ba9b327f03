/* placeholder until the kernel lands */ int kaish__placeholder;
