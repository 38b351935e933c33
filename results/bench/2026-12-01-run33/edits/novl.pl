# drop the lane stores (wrong at cut groups; timing only)
s/\n\s*fs_pst\(&[^\n]*fs_m\d\);//g;
